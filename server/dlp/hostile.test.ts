// Hostile input: each limit refuses what passes it, and reports it as `encrypted` at its place
// (never passed silently), while the rest of the message is still scanned.
import { describe, expect, it } from "vitest";
import { scanMessage } from "./scanner.ts";
import * as doc from "./test/documents.ts";

const card = "card 4111 1111 1111 1111";
const where = (r: Awaited<ReturnType<typeof scanMessage>>) => r.findings.map((f) => `${f.type} ${f.where} ${f.masked}`);

describe("DLP limits on hostile input", () => {
  it("refuses a zip bomb by its ratio before inflating it, and scans the other entries", async () => {
    const zip = await doc.deflatedZip([{ name: "zeros.bin", data: Buffer.alloc(20_000_000) }, { name: "note.txt", data: card }]);
    const r = await scanMessage({ attachments: [{ filename: "bomb.zip", content: zip }] });
    expect(where(r)).toEqual([expect.stringMatching(/^encrypted attachment:bomb.zip\/zeros.bin not inspected: inflates \d+:1/), "card attachment:bomb.zip/note.txt 4111 **** **** 1111"]);
  });

  it("caps the bytes inflated per message", async () => {
    const zip = await doc.deflatedZip([{ name: "a.txt", data: "x".repeat(600_000) }, { name: "b.txt", data: "y".repeat(600_000) }]);
    const r = await scanMessage({ attachments: [{ filename: "big.zip", content: zip }] }, { limits: { maxInflatedBytes: 1_000_000, maxCompressionRatio: 1e9 } });
    expect(where(r)).toEqual(["encrypted attachment:big.zip/b.txt not inspected: inflates past 1 MB (zip bomb limit)"]);
  });

  it("caps nesting depth and entry count", async () => {
    let inner = doc.storedZip([{ name: "deep.txt", data: card }]);
    for (let i = 0; i < 3; i++) inner = doc.storedZip([{ name: `level${i}.zip`, data: inner }]);
    const deep = await scanMessage({ attachments: [{ filename: "nested.zip", content: inner }] });
    expect(where(deep)).toEqual(["encrypted attachment:nested.zip/level2.zip/level1.zip/level0.zip not inspected: archives nested deeper than 3"]);
    const many = doc.storedZip(Array.from({ length: 20 }, (_, i) => ({ name: `f${i}.txt`, data: "x" })));
    const r = await scanMessage({ attachments: [{ filename: "many.zip", content: many }] }, { limits: { maxEntries: 10 } });
    expect(where(r)).toEqual(["encrypted attachment:many.zip not inspected: 20 zip entries, more than 10"]);
  });

  it("reads PDF pages up to the limit and reports the rest", async () => {
    const pdf = await doc.pdf([card], { pages: 4 });
    const r = await scanMessage({ attachments: [{ filename: "long.pdf", content: pdf }] }, { limits: { maxPdfPages: 2 } });
    expect(where(r)).toEqual(["card attachment:long.pdf 4111 **** **** 1111", "encrypted attachment:long.pdf not inspected: pages 3 to 4 (limit 2 pages)"]);
    expect(r.findings[0].count).toBe(2);
  });

  it("reports what the message budget did not reach", async () => {
    const r = await scanMessage({ subject: card, attachments: [{ filename: "late.txt", content: Buffer.from(card) }] }, { limits: { messageBudgetMs: 0 } });
    expect(where(r)).toEqual(["card subject 4111 **** **** 1111", "encrypted attachment:late.txt not inspected: time budget of the message ran out"]);
  });

  it("refuses an image too large to OCR before decoding it", async () => {
    const png = Buffer.alloc(33);
    png.writeUInt32BE(0x89504e47, 0);
    png.writeUInt32BE(0x0d0a1a0a, 4);
    png.writeUInt32BE(100_000, 16);
    png.writeUInt32BE(100_000, 20);
    const r = await scanMessage({ attachments: [{ filename: "huge.png", content: png }] }, { ocr: true });
    expect(where(r)).toEqual(["encrypted ocr:huge.png not inspected: image of 10000 megapixels, more than 40"]);
  });

  it("reports one finding per distinct value with a count, and mass at 10 matches in one file", async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `row ${i},${i % 2 ? "4111 1111 1111 1111" : "5555 5555 5555 4444"}`).join("\n");
    const r = await scanMessage({ attachments: [{ filename: "dump.csv", content: Buffer.from(`name,card\n${rows}`) }] });
    expect(r.findings).toEqual([
      { type: "card", masked: "5555 **** **** 4444", where: "attachment:dump.csv", full: false, mass: true, count: 5000 },
      { type: "card", masked: "4111 **** **** 1111", where: "attachment:dump.csv", full: false, mass: true, count: 5000 },
    ]);
  });

  it("reads a JSON file's values under their keys, and a JSON nested past the stack as raw text", async () => {
    const json = JSON.stringify({ customer: { note: "CONFIDENTIAL\nterms", passport: "C01234567" }, card: 4111111111111111 });
    const r = await scanMessage({ attachments: [{ filename: "record.json", content: Buffer.from(json) }] });
    expect(where(r)).toEqual(["confidential attachment:record.json CONFIDENTIAL", "passport attachment:record.json C0*****67", "card attachment:record.json 4111 **** **** 1111"]);
    const deep = `${"[".repeat(200_000)}"4111 1111 1111 1111"${"]".repeat(200_000)}`;
    const d = await scanMessage({ attachments: [{ filename: "deep.json", content: Buffer.from(deep) }] });
    expect(where(d)).toEqual(["card attachment:deep.json 4111 **** **** 1111"]);
  });
});
