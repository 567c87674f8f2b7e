// Pictures inside documents (word/media, ppt/media, xl/media, PDF page images) are read by OCR
// when the policy's engine is builtin, each at `ocr:<document>/<inner path>` (decision DLP6), under
// the same limits as an attached image; what those limits stop is reported, never passed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopOcr } from "./extract/ocr.ts";
import { scanMessage } from "./scanner.ts";
import * as doc from "./test/documents.ts";
import { renderPngs } from "./test/images.ts";

let card: Buffer;
let order: Buffer;
beforeAll(async () => {
  [card, order] = await renderPngs([["Card number 4111 1111 1111 1111"], ["Order 4111 1111 1111 1112 shipped"]]);
});
afterAll(() => stopOcr());

const where = (r: Awaited<ReturnType<typeof scanMessage>>) => r.findings.map((f) => `${f.type} ${f.where}`);
const one = (filename: string, content: Buffer) => ({ subject: "Scan", attachments: [{ filename, content }] });

describe("DLP OCR of pictures inside documents", () => {
  it("finds a card in a picture of a docx, xlsx, pptx and PDF, and not an order number beside it", { timeout: 120_000 }, async () => {
    const files: [string, Buffer, string][] = [
      ["letter.docx", await doc.docx(["Please see the scan below."], undefined, [order, card]), "word/media/"],
      ["sheet.xlsx", await doc.xlsx([["note"], ["see picture"]], [card, order]), "xl/media/"],
      ["deck.pptx", await doc.pptx(["Payment slide"], [order, card]), "ppt/media/"],
      ["form.pdf", await doc.pdf(["Scanned form"], { pictures: [order, card] }), "page-1/"],
    ];
    for (const [name, content, folder] of files) {
      const r = await scanMessage(one(name, content), { ocr: true });
      expect(where(r), name).toEqual([expect.stringMatching(new RegExp(`^card ocr:${name.replace(".", "\\.")}/${folder}image[-]?\\d\\.png$`))]);
    }
  });

  it("reads nothing inside pictures when OCR is off, as for an attached image", async () => {
    const r = await scanMessage(one("letter.docx", await doc.docx(["Hello"], undefined, [card])), { ocr: false });
    expect(r.findings).toEqual([]);
  });

  it("names the picture by its path through a zip", { timeout: 60_000 }, async () => {
    const zip = doc.storedZip([{ name: "scans/form.pdf", data: await doc.pdf(["Form"], { pictures: [card] }) }]);
    const r = await scanMessage(one("bundle.zip", zip), { ocr: true });
    expect(where(r)).toEqual(["card ocr:bundle.zip/scans/form.pdf/page-1/image-1.png"]);
  });

  it("reports a picture whose OCR passes its time limit, and still reads the document's text", { timeout: 60_000 }, async () => {
    const r = await scanMessage(one("letter.docx", await doc.docx(["IBAN GB82 WEST 1234 5698 7654 32"], undefined, [card])), { ocr: true, limits: { ocrTimeoutMs: 1 } });
    expect(r.findings.map((f) => `${f.type} ${f.where} ${f.masked}`)).toEqual([
      "iban attachment:letter.docx GB82 **** 5432",
      "encrypted ocr:letter.docx/word/media/image1.png not inspected: OCR took longer than 0.001 s",
    ]);
  });

  it("reports a picture past the pixel limit without decoding it", async () => {
    const r = await scanMessage(one("deck.pptx", await doc.pptx(["Slide"], [card])), { ocr: true, limits: { maxImagePixels: 1000 } });
    expect(where(r)).toEqual(["encrypted ocr:deck.pptx/ppt/media/image1.png"]);
    expect(r.findings[0].masked).toMatch(/^not inspected: image of \d+ megapixels, more than 0$/);
  });
});
