// OCR of PNG and JPEG through tesseract.js with the English model shipped by
// @tesseract.js-data/eng: no download at run time (langPath is the package's folder, no cache).
// One recognizer per scanning thread, made on first use and replaced after a timeout (the only
// way to stop a recognition is to end its worker).
import { createRequire } from "node:module";
import { createWorker, type Worker } from "tesseract.js";
import { Uninspectable } from "./limits.ts";
import { prepareForOcr } from "./ocr-prepare.ts";

const require = createRequire(import.meta.url);
const eng = require("@tesseract.js-data/eng") as { langPath: string; gzip: boolean };

let recognizer: Promise<Worker> | undefined;

function worker(): Promise<Worker> {
  recognizer ??= createWorker("eng", 1, { langPath: eng.langPath, gzip: eng.gzip, cacheMethod: "none" });
  return recognizer;
}

/** Width x height from the PNG header or the JPEG frame header, before decoding anything. */
export function imagePixels(buf: Buffer): number | undefined {
  if (buf.readUInt32BE(0) === 0x89504e47 && buf.length >= 24) return buf.readUInt32BE(16) * buf.readUInt32BE(20);
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) return undefined;
    const marker = buf[i + 1];
    const length = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return buf.readUInt16BE(i + 5) * buf.readUInt16BE(i + 7);
    i += 2 + length;
  }
  return undefined;
}

/** `late`: the reason given when `timeoutMs` runs out (it may be what is left of the message's budget). */
export async function ocrText(buf: Buffer, timeoutMs: number, maxPixels: number, late = `not inspected: OCR took longer than ${timeoutMs / 1000} s`): Promise<string> {
  const pixels = imagePixels(buf);
  if (pixels === undefined) throw new Uninspectable("not inspected: unreadable image");
  if (pixels > maxPixels) throw new Uninspectable(`not inspected: image of ${Math.round(pixels / 1e6)} megapixels, more than ${Math.round(maxPixels / 1e6)}`);
  const w = await worker();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Uninspectable(late)), timeoutMs);
  });
  try {
    const read = async () => {
      const first = (await w.recognize(buf)).data.text;
      // Small print and low contrast: read once more, prepared (ocr-prepare.ts); lines the first
      // reading did not have are added (a value read both times is not counted twice).
      const prepared = prepareForOcr(buf, buf[0] === 0x89 ? "png" : "jpeg", maxPixels);
      if (!prepared) return first;
      const seen = new Set(first.split("\n").map((l) => l.trim()));
      const more = (await w.recognize(prepared)).data.text.split("\n").filter((l) => l.trim() && !seen.has(l.trim()));
      return more.length ? `${first}\n${more.join("\n")}` : first;
    };
    return await Promise.race([read(), timeout]);
  } catch (error) {
    if (error instanceof Uninspectable) {
      recognizer = undefined;
      void w.terminate().catch(() => {});
      throw error;
    }
    throw new Uninspectable("not inspected: unreadable image");
  } finally {
    clearTimeout(timer);
  }
}

export async function stopOcr(): Promise<void> {
  const r = recognizer;
  recognizer = undefined;
  if (r) await (await r).terminate();
}
