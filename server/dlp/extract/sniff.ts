// What an attachment is, from its bytes first (a renamed file is still what it is), then its name.
import { isRtf } from "./rtf.ts";
import { isUtf16 } from "./text-encoding.ts";

export type FileKind = "zip" | "tar" | "gzip" | "pdf" | "png" | "jpeg" | "cfb" | "message" | "sealed" | "archive" | "html" | "csv" | "json" | "rtf" | "text" | "binary";

const ext = (name: string) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";

function isText(buf: Buffer): boolean {
  const sample = buf.subarray(0, 8192);
  if (sample.includes(0)) return false;
  // Mostly printable: allow UTF-8 multibyte, tabs and newlines.
  let control = 0;
  for (const b of sample) if (b < 9 || (b > 13 && b < 32)) control++;
  return control <= sample.length / 100;
}

const startsWith = (buf: Buffer, hex: string, at = 0) => buf.length >= at + hex.length / 2 && buf.subarray(at, at + hex.length / 2).equals(Buffer.from(hex, "hex"));

/** Archives and compressed files we have no reader for: reported, never passed as unreadable bytes (DLP4). */
export function archiveName(buf: Buffer): string | undefined {
  if (startsWith(buf, "377abcaf271c")) return "7z archive";
  if (startsWith(buf, "526172211a07")) return "RAR archive";
  if (startsWith(buf, "425a68") && /^[1-9]$/.test(String.fromCharCode(buf[3] ?? 0))) return "bzip2 file";
  if (startsWith(buf, "fd377a585a00")) return "xz file";
  if (startsWith(buf, "28b52ffd")) return "zstd file";
  return undefined;
}

/** A mail message: RFC 5322 header fields from the first line, two of them the ones every message has. */
function looksLikeMessage(buf: Buffer): boolean {
  const head = buf.subarray(0, 4096).toString("utf8");
  const block = head.split(/\r?\n\r?\n/)[0];
  if (!/^[!-9;-~]+:[ \t]/.test(block)) return false;
  const names = new Set([...block.matchAll(/^([!-9;-~]+):/gm)].map((m) => m[1].toLowerCase()));
  return ["from", "to", "subject", "date", "message-id", "mime-version", "received"].filter((n) => names.has(n)).length >= 2;
}

export function sniff(buf: Buffer, filename: string, contentType = ""): FileKind {
  const e = ext(filename);
  // Office packages are zips too: the zip extractor tells them apart by their entries.
  if (buf.length >= 4 && (buf.readUInt32BE(0) === 0x504b0304 || buf.readUInt32BE(0) === 0x504b0506)) return "zip";
  if (startsWith(buf, "1f8b")) return "gzip";
  if (buf.subarray(0, 1024).includes("%PDF-")) return "pdf";
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) return "png";
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return "jpeg";
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0xd0cf11e0 && buf.readUInt32BE(4) === 0xa1b11ae1) return "cfb";
  // POSIX ("ustar\0") and GNU ("ustar  ") tar: read by extract/tar.ts.
  if (buf.length >= 262 && buf.subarray(257, 262).toString("latin1") === "ustar") return "tar";
  if (archiveName(buf)) return "archive";
  // Encrypted mail and files: S/MIME (pkcs7-mime), OpenPGP (binary or armored).
  if (/pkcs7-mime|pgp-encrypted/i.test(contentType) || ["p7m", "p7e", "gpg", "pgp"].includes(e)) return "sealed";
  if (/^message\/(?:rfc822|global)/i.test(contentType) || e === "eml") return "message";
  // RTF is 7-bit text, and a .doc saved by many mail clients and older Word is RTF inside: read as
  // the text it renders (extract/rtf.ts), whatever its name.
  if (isRtf(buf)) return "rtf";
  // Text saved as UTF-16 (Windows' "Unicode"): its NULs are not binary (extract/text-encoding.ts).
  if (isUtf16(buf)) {
    const text = new TextDecoder(buf[0] === 0xfe ? "utf-16be" : "utf-16le").decode(buf.subarray(0, 1024));
    return ["csv", "tsv"].includes(e) ? "csv" : ["html", "htm"].includes(e) || /^\W*(?:<!doctype html|<html)/i.test(text) ? "html" : e === "json" ? "json" : "text";
  }
  if (!isText(buf)) return "binary";
  const textExt = ["txt", "csv", "tsv", "json", "html", "htm", "md", "log", "xml"].includes(e);
  if (!textExt && looksLikeMessage(buf)) return "message";
  if (e === "html" || e === "htm" || /html/i.test(contentType) || /^\s*(?:<!doctype html|<html)/i.test(buf.subarray(0, 512).toString("utf8"))) return "html";
  if (e === "csv" || e === "tsv" || /csv|tab-separated/i.test(contentType)) return "csv";
  if (e === "json" || /json/i.test(contentType) || /^\s*[{[]/.test(buf.subarray(0, 64).toString("utf8"))) return "json";
  return "text";
}
