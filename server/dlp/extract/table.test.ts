// Tables read as tables (issue 31): a cell's context is its column header and its row's label,
// wherever the value stands; numeric cells are matched like text.
import { describe, expect, it } from "vitest";
import { scanMessage } from "../scanner.ts";
import * as doc from "../test/documents.ts";
import { csvRows, plainNumber, tableText } from "./table.ts";

const found = async (filename: string, content: Buffer) => (await scanMessage({ subject: "x", attachments: [{ filename, content }] })).findings.map((f) => `${f.type} ${f.masked}`).sort();

describe("CSV as a table", () => {
  it("parses quoted cells with delimiters, quotes and line breaks", () => {
    expect(csvRows('a;b\r\n"x;1";"say ""hi""\nthere"\n')).toEqual([["a", "b"], ["x;1", 'say "hi"\nthere']]);
    expect(csvRows("a\tb\tc\n1\t\t3")).toEqual([["a", "b", "c"], ["1", "", "3"]]);
    expect(csvRows("a|b\n x | \"y|z\" ")).toEqual([["a", "b"], [" x ", "y|z"]]);
    expect(csvRows('a,b\n5"7,x\n')).toEqual([["a", "b"], ['5"7', "x"]]);
  });

  it("finds a SWIFT code, a passport and a VÖEN by their column headers, whatever column they are in", async () => {
    const csv = "Name,Country,SWIFT,IBAN,Passport No,VÖEN\nAcme LLC,DE,DEUTDEFF,DE89370400440532013000,C01234567,1401555071\n";
    expect(await found("suppliers.csv", Buffer.from(csv))).toEqual(["iban DE89 **** 3000", "passport C0*****67", "swift DEUTDE**", "voen 14******71"]);
  });

  it("keeps a value under its header when cells before it are empty", async () => {
    expect(await found("a.csv", Buffer.from("Name,Note,SWIFT\nAcme,,COBADEFFXXX\n"))).toEqual(["swift COBADE*****"]);
  });

  it("reads a header with digits in it and a title row above the header", async () => {
    expect(await found("b.csv", Buffer.from("Suppliers 2026\nName,Tax ID 2026,FIN code\nAcme,1401555071,5VBK5VR\n"))).toEqual(["fin 5*****R", "voen 14******71"]);
  });

  it("takes a row's label as the context of its values (a form laid out as a table)", async () => {
    expect(await found("form.csv", Buffer.from("Field,Value\nSWIFT,NABZAZ2X\nPassport,AA1234567\n"))).toEqual(["passport AA*****67", "swift NABZAZ**"]);
    expect(await found("kv.csv", Buffer.from("Bank,Kapital Bank\nBIC,AIIBAZ2X\n"))).toEqual(["swift AIIBAZ**"]);
  });

  it("finds nothing in a table of codes that are not sensitive", async () => {
    const csv = "SKU,Product code,Order number,Flight\n73513537,BUSINESS,100234567,J28123\n4006381333931,ABCDEFGH,4111111111111112,AZ2X123\n";
    expect(await found("codes.csv", Buffer.from(csv))).toEqual([]);
  });
});

describe("xlsx as a table", () => {
  it("finds values by header, with numeric cells matched like text and empty cells kept in place", async () => {
    const sheet = await doc.xlsx([["Name", "Comment", "SWIFT", "VÖEN", "Card"], ["Acme", "", "DEUTDEFF", 1401555071, 4111111111111111]]);
    expect(await found("s.xlsx", sheet)).toEqual(["card 4111 **** **** 1111", "swift DEUTDE**", "voen 14******71"]);
  });

  it("reads a number Excel wrote in scientific notation as its digits", () => {
    expect(plainNumber("1.401555071E+9")).toBe("1401555071");
    expect(plainNumber("1.5E+3")).toBe("1500");
    expect(plainNumber("1.23456E+2")).toBe("1.23456E+2");
  });

  it("a header of digits is no header: rows are read with their labels", () => {
    expect(tableText([["2024", "2025"], ["SWIFT", "DEUTDEFF"]])).toBe("2024\n2025\n\nSWIFT\nSWIFT: DEUTDEFF\n");
  });
});

describe("HTML tables as tables", () => {
  const html = async (body: string) => (await scanMessage({ subject: "x", html: body, attachments: [] })).findings.map((f) => `${f.type} ${f.masked}`).sort();

  it("reads a value under its <th> header, in a table nested in a layout table", async () => {
    const inner = "<table><tr><th>Beneficiary</th><th>SWIFT</th><th>VÖEN</th></tr><tr><td>Acme</td><td>DEUTDEFF</td><td>1401555071</td></tr></table>";
    expect(await html(`<table width="600"><tr><td><img src="logo.png" alt="Logo"></td></tr><tr><td>${inner}</td></tr></table>`)).toEqual(["swift DEUTDE**", "voen 14******71"]);
  });

  it("reads a one-column layout table as lines, and finds nothing in a table of codes", async () => {
    expect(await html("<table><tr><td>Passport fee</td></tr><tr><td>Order 100234567</td></tr></table>")).toEqual([]);
    expect(await html("<table><tr><th>SKU</th><th>Code</th></tr><tr><td>73513537</td><td>BUSINESS</td></tr></table>")).toEqual([]);
  });
});
