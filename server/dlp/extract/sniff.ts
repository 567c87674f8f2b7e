// What an attachment is, from its bytes first (a renamed file is still what it is), then its name.
export type FileKind = "zip" | "pdf" | "png" | "jpeg" | "cfb" | "html" | "csv" | "json" | "text" | "binary";

const ext = (name: string) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";

function isText(buf: Buffer): boolean {
  const sample = buf.subarray(0, 8192);
  if (sample.includes(0)) return false;
  // Mostly printable: allow UTF-8 multibyte, tabs and newlines.
  let control = 0;
  for (const b of sample) if (b < 9 || (b > 13 && b < 32)) control++;
  return control <= sample.length / 100;
}

export function sniff(buf: Buffer, filename: string, contentType = ""): FileKind {
  const e = ext(filename);
  // Office packages are zips too: the zip extractor tells them apart by their entries.
  if (buf.length >= 4 && (buf.readUInt32BE(0) === 0x504b0304 || buf.readUInt32BE(0) === 0x504b0506)) return "zip";
  if (buf.subarray(0, 1024).includes("%PDF-")) return "pdf";
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) return "png";
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return "jpeg";
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0xd0cf11e0 && buf.readUInt32BE(4) === 0xa1b11ae1) return "cfb";
  if (!isText(buf)) return "binary";
  if (e === "html" || e === "htm" || /html/i.test(contentType) || /^\s*(?:<!doctype html|<html)/i.test(buf.subarray(0, 512).toString("utf8"))) return "html";
  if (e === "csv" || /csv/i.test(contentType)) return "csv";
  if (e === "json" || /json/i.test(contentType) || /^\s*[{[]/.test(buf.subarray(0, 64).toString("utf8"))) return "json";
  return "text";
}
