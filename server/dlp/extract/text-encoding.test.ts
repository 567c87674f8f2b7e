// Text in the encoding it was saved in (issue 40): UTF-16 with and without its mark was "binary".
import { describe, expect, it } from "vitest";
import { scanMessage } from "../scanner.ts";
import { decodeText } from "./text-encoding.ts";

const line = "Kart: 4929 5339 1826 4052\r\nPaspor: hazır";
const be = (s: string) => Buffer.from(s, "utf16le").swap16();

describe("decodeText", () => {
  it.each([
    ["UTF-16 LE with its mark", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(line, "utf16le")])],
    ["UTF-16 BE with its mark", Buffer.concat([Buffer.from([0xfe, 0xff]), be(line)])],
    ["UTF-16 LE without a mark", Buffer.from(line, "utf16le")],
    ["UTF-16 BE without a mark", be(line)],
    ["UTF-8 with its mark", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(line)])],
    ["UTF-16 BE without a mark, mostly Cyrillic", be("Номер карты для оплаты: 4929 5339 1826 4052")],
  ])("%s", async (_name, buf) => {
    expect(decodeText(buf)).toMatch(/4929 5339 1826 4052/);
    const { findings } = await scanMessage({ attachments: [{ filename: "note.txt", content: buf }] });
    expect(findings.map((f) => `${f.type} ${f.where}`)).toEqual(["card attachment:note.txt"]);
  });

  it("honours the charset of the Content-Type, UTF-8 otherwise", () => {
    expect(decodeText(Buffer.from([0xcf, 0xe0, 0xf1]), "text/plain; charset=windows-1251")).toBe("Пас");
    expect(decodeText(Buffer.from("Paşa"), "text/plain; charset=unknown-x")).toBe("Paşa");
  });
});
