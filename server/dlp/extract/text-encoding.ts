// A text file in the encoding it was saved in. Windows saves "Unicode" text as UTF-16 with a byte
// order mark, and a file in UTF-16 has a NUL in every other byte of its ASCII: read as bytes it was
// "binary" and passed unread, so the encoding a sender picks in a Save dialog decided whether a
// number was seen. UTF-16 (by its mark, or by NULs in every other byte) and UTF-8 with or without
// its mark are decoded; a charset named by the attachment's Content-Type is honoured.

/** UTF-16 without a mark: NUL bytes at odd (LE) or even (BE) offsets in a third or more of the first 256 characters, almost none at the other. */
function utf16Order(buf: Buffer): "utf-16le" | "utf-16be" | undefined {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return "utf-16le";
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return "utf-16be";
  const n = Math.min(buf.length, 512) & ~1;
  if (n < 8) return undefined;
  let odd = 0;
  let even = 0;
  for (let i = 0; i < n; i += 2) {
    if (buf[i] === 0) even++;
    if (buf[i + 1] === 0) odd++;
  }
  // Counted in characters (pairs of bytes): ASCII has a NUL in its high byte, other scripts
  // (Cyrillic 04xx) do not, so a third of the characters is enough.
  const pairs = n / 2;
  if (odd > pairs * 0.3 && even < pairs * 0.05) return "utf-16le";
  if (even > pairs * 0.3 && odd < pairs * 0.05) return "utf-16be";
  return undefined;
}

export function isUtf16(buf: Buffer): boolean {
  return utf16Order(buf) !== undefined;
}

export function decodeText(buf: Buffer, contentType = ""): string {
  const order = utf16Order(buf);
  if (order) return new TextDecoder(order).decode(buf);
  const charset = /charset="?([\w.:-]+)/i.exec(contentType)?.[1];
  if (charset && !/^(?:utf-?8|us-ascii)$/i.test(charset)) {
    try {
      return new TextDecoder(charset).decode(buf);
    } catch {
      // An unknown charset: read as UTF-8, as before.
    }
  }
  return new TextDecoder("utf-8").decode(buf);
}
