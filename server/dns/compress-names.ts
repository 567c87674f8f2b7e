// Name compression (RFC 1035 4.1.4) of a message dns-packet encoded: dns-packet writes every
// name in full, so an answer repeats the question's name in each record and its zone in each
// target (70 bytes for a plain A where NSD and PowerDNS send 52, 204 for a CNAME chain where
// they send 104). No well-kept JavaScript encoder compresses (dns-packet, its fork
// @leichtgewicht/dns-packet, dns2 do not), so this pass rewrites the encoded message: each name
// whose suffix was already written becomes its new labels plus a pointer to that suffix.
// Suffixes match case-insensitively (ASCII), as the peers compress, so an answer's names point
// into the question and resolve to the asker's spelling. Names inside record data are
// compressed only for the types RFC 1035 defines (NS, CNAME, SOA, PTR, MX); RFC 3597 forbids it
// for any other, and SRV's target must not be compressed (RFC 2782).
const HEADER = 12;
const MAX_POINTER = 0x3fff;
const TYPE = { NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15 } as const;

/** The same message with its names compressed; never longer than `message`. */
export function compressNames(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(message.length);
  message.copy(out, 0, 0, HEADER);
  const written = new Map<string, number>();
  let i = HEADER;
  let o = HEADER;

  const copy = (length: number): void => {
    message.copy(out, o, i, i + length);
    i += length;
    o += length;
  };
  const name = (): void => {
    const starts: number[] = [];
    for (;;) {
      const length = message[i];
      // dns-packet writes no pointers; anything but a plain label means this is not its output.
      if (length === undefined || length > 63) throw new Error(`not an uncompressed name at ${i}`);
      if (length === 0) break;
      starts.push(i);
      i += length + 1;
    }
    const end = i;
    i++;
    for (const start of starts) {
      const suffix = foldedKey(message, start, end);
      const at = written.get(suffix);
      if (at !== undefined) {
        out.writeUInt16BE(0xc000 | at, o);
        o += 2;
        return;
      }
      if (o <= MAX_POINTER) written.set(suffix, o);
      const length = message[start] + 1;
      message.copy(out, o, start, start + length);
      o += length;
    }
    out[o++] = 0;
  };

  const questions = message.readUInt16BE(4);
  const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10);
  for (let q = 0; q < questions; q++) {
    name();
    copy(4); // type, class
  }
  for (let r = 0; r < records; r++) {
    name();
    const type = message.readUInt16BE(i);
    copy(8); // type, class, TTL
    const dataEnd = i + 2 + message.readUInt16BE(i);
    i += 2;
    const lengthAt = o;
    o += 2;
    if (type === TYPE.NS || type === TYPE.CNAME || type === TYPE.PTR) name();
    else if (type === TYPE.MX) {
      copy(2); // preference
      name();
    } else if (type === TYPE.SOA) {
      name(); // MNAME
      name(); // RNAME
      copy(20); // serial, refresh, retry, expire, minimum
    } else copy(dataEnd - i);
    if (i !== dataEnd) throw new Error(`record data of type ${type} does not end at its length`);
    out.writeUInt16BE(o - lengthAt - 2, lengthAt);
  }
  if (i !== message.length) throw new Error("bytes after the last record");
  return out.subarray(0, o);
}

/** The name from `start` to its terminating zero, ASCII letters folded: the dictionary key. */
function foldedKey(message: Buffer, start: number, end: number): string {
  let key = "";
  for (let k = start; k < end; k++) {
    const c = message[k];
    key += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
  }
  return key;
}
