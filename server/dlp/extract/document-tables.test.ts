// Tables read with their headers in every format that has them (issue 40): the same table as a
// Word, PowerPoint (slide and notes), ODF text and RTF document, and as a PDF grid, each value
// found at its row's and column's labels; a PDF form drawn labels first, a page in three columns,
// and twelve cards in a PDF table (mass).
import { describe, expect, it } from "vitest";
import type { OutgoingContent } from "../dlp-port.ts";
import { scanMessage } from "../scanner.ts";
import * as doc from "../test/documents.ts";

const rows = [["Name", "Passport", "ИНН (ВОЕН)", "SWIFT"], ["Leyla Quliyeva", "C4F7G2K91", "1503847261", "IBAZAZ2X"], ["Kamal Aliyev", "C5H8J3L02", "2304918572", "PAHAAZ22"]];
const expected = ["passport C4*****91", "passport C5*****02", "swift IBAZAZ**", "swift PAHAAZ**", "voen 15******61", "voen 23******72"];
const grid = (r: string[][]) => r.flatMap((row, i) => row.map((text, c) => ({ text, x: 40 + c * 140, y: 720 - i * 16 })));

const found = async (filename: string, content: Buffer) => {
  const { findings } = await scanMessage({ attachments: [{ filename, content }] } as OutgoingContent);
  return findings.map((f) => `${f.type} ${f.masked}`).sort();
};

describe("a table's values are found under its header in every format", () => {
  const formats: [string, () => Promise<Buffer> | Buffer][] = [
    ["t.docx", () => doc.docxTables(["Clients"], [rows])],
    ["t.pptx", () => doc.pptxTable("Clients", rows)],
    ["notes.pptx", () => doc.pptxTable("Clients", undefined, ["see the table"], rows)],
    ["t.odt", () => doc.odt(["Clients"], [rows])],
    ["t.rtf", () => doc.rtf(["Clients"], { tables: [rows] })],
    // Standard PDF fonts have no Cyrillic: the same table with a Latin header.
    ["t.pdf", () => doc.pdfAt([grid([["Name", "Passport", "VÖEN", "SWIFT"], ...rows.slice(1)])])],
  ];
  it.each(formats)("%s", async (name, build) => {
    expect(await found(name, await build())).toEqual(expected);
  });

  it("the rows alone, without the header, are no finding (the header is what labels them)", async () => {
    expect(await found("t.docx", await doc.docxTables(["Clients"], [rows.slice(1)]))).toEqual([]);
  });
});

describe("a PDF page as laid out", () => {
  it("a form drawn labels first: each value with the label in its row", async () => {
    const items = [...["Surname", "Pasaporte", "Tax ID"].map((text, i) => ({ text, x: 50, y: 700 - i * 20 })), ...["Ortega", "XDA482913", "9900112231"].map((text, i) => ({ text, x: 220, y: 700 - i * 20 }))];
    expect(await found("form.pdf", await doc.pdfAt([items]))).toEqual(["passport XD*****13", "voen 99******31"]);
  });

  it("three columns drawn line by line: each column read on its own, no line glued to the next column", async () => {
    const cols = [
      ["Our partners in Tbilisi can be paid at", "IBAN GE29 NB00 0000 0101 9049 17", "from the first of the month onwards."],
      ["2026-12-01 the new office opens its", "doors for visitors, with 150 seats in", "the hall and parking for 40 cars there."],
      ["For the visa, send the scans today:", "Passport number of the guest:", "18CV73512, valid for ten more years."],
    ];
    const items = [0, 1, 2].flatMap((line) => cols.map((c, i) => ({ text: c[line], x: 40 + i * 185, y: 720 - line * 14, size: 8 })));
    expect(await found("cols.pdf", await doc.pdfAt([items]))).toEqual(["iban GE29 **** 4917", "passport 18*****12"]);
  });

  it("twelve cards in a table are twelve values, mass", async () => {
    const items = [{ text: "Holder", x: 50, y: 720 }, { text: "Card", x: 200, y: 720 }, ...Array.from({ length: 12 }, (_, i) => [{ text: `Holder ${i + 1}`, x: 50, y: 700 - i * 15 }, { text: doc.luhnNumber("4", 16, i), x: 200, y: 700 - i * 15 }]).flat()];
    const { findings } = await scanMessage({ attachments: [{ filename: "cards.pdf", content: await doc.pdfAt([items]) }] });
    const cards = findings.filter((f) => f.type === "card");
    expect([cards.length, cards.every((f) => f.mass)]).toEqual([10, true]);
  });
});

describe("card numbers: expiry before marks full, regrouped numbers are found", () => {
  it.each([
    ["Exp. 11/29 · 4929 5339 1826 4052", true],
    ["4929 5339 1826 40 52", false],
    ["626239-3918264051770", false],
  ])("%s", async (text, full) => {
    const { findings } = await scanMessage({ text, attachments: [] });
    expect(findings.map((f) => [f.type, f.full])).toEqual([["card", full]]);
  });
});
