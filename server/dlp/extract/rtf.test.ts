// RTF read as its text (issue 40): each escape and structure of the format, table-driven.
import { describe, expect, it } from "vitest";
import { rtf } from "../test/documents.ts";
import { rtfText } from "./rtf.ts";

const doc = (body: string, head = String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Arial;}}`) => `${head}${body}}`;

describe("rtfText", () => {
  const table: [string, string, string][] = [
    ["\\uN with its ? fallback", doc(String.raw`F\u304?N: 3KP9RWZ`), "FİN: 3KP9RWZ"],
    ["negative \\uN (past U+7FFF)", doc(String.raw`\u-3913?\u-3912?`), "\uf0b7\uf0b8"],
    ["\\uc2 skips two fallback characters, \\'hh counting as one", doc(String.raw`\uc2 F\u304\'49\'49N`), "FİN"],
    ["\\uc0: no fallback", doc(String.raw`\uc0 F\u304 N`), "FİN"],
    ["\\uc is scoped to its group", doc(String.raw`{\uc0 \u1055}\u1072?x`), "Пax".replace("a", "а")],
    ["\\'hh in \\ansicpg1251", String.raw`{\rtf1\ansi\ansicpg1251 \'cf\'e0\'f1\'ef\'ee\'f0\'f2}`, "Паспорт"],
    ["\\'hh in \\ansicpg1254", String.raw`{\rtf1\ansi\ansicpg1254 \'dd\'fe\'fd\'f0}`, "İşığ"],
    ["\\'hh in the font's \\fcharset", String.raw`{\rtf1\ansi{\fonttbl{\f0\fcharset0 Arial;}{\f1\fcharset204 Arial;}}\f1 \'c8\'cd\'cd\f0  \'c8}`, "ИНН È"],
    ["bytes past ASCII written raw are in the code page too", `{\\rtf1\\ansi\\ansicpg1251 \xcf\xe0\xf1}`, "Пас"],
    ["Shift-JIS pairs decoded together", String.raw`{\rtf1\ansi\ansicpg932 \'83\'4a\'81\'5b\'83\'68}`, "カード"],
    ["formatting groups do not split a number", doc(String.raw`card {\b 4111} 1111 {\i 11}11 1111`), "card 4111 1111 1111 1111"],
    ["a group inside a number", doc(String.raw`41{\b 11}1111111111{\ul 11}`), "4111111111111111"],
    ["\\par, \\line, \\tab", doc(String.raw`a\par b\line c\tab d`), "a\nb\nc\td"],
    ["\\~ no-break space, \\_ no-break hyphen, \\- optional hyphen", doc(String.raw`4111\~1111\_1111\-1111`), "4111\u00a01111\u20111111" + "1111"],
    ["escaped braces and backslash", doc(String.raw`\{x\} \\ y`), "{x} \\ y"],
    ["\\emdash, \\endash, \\bullet, quotes", doc(String.raw`a\emdash b\endash c\bullet d\lquote e\rquote`), "a—b–c•d‘e’"],
    ["the font, colour and style tables are not text", String.raw`{\rtf1\ansi{\fonttbl{\f0 Times 4111111111111111;}}{\colortbl;\red0\green0\blue0;}{\stylesheet{\s0 Normal;}}x}`, "x"],
    ["\\*\\ destinations are skipped, pictures and \\bin data too", doc(String.raw`a{\*\userprops {\propname p}}{\pict\pngblip 0123}{\*\bkmkstart k}b\bin3 xyzc`), "abc"],
    ["\\info's text fields are read, its dates not", doc(String.raw`{\info{\title Card 5500000000000004}{\creatim\yr2026\mo1}}body`), "Card 5500000000000004\nbody"],
    ["a field's instruction (a link's URL) and result", doc(String.raw`{\field{\*\fldinst HYPERLINK "https://x.test/?pan=4111111111111111"}{\fldrslt click}}`), 'HYPERLINK "https://x.test/?pan=4111111111111111"\nclick'],
    ["headers and footers are text", doc(String.raw`{\header STRENG VERTRAULICH\par}body`), "STRENG VERTRAULICH\n\nbody"],
  ];
  it.each(table)("%s", (_name, input, expected) => {
    expect(rtfText(input)).toBe(expected);
  });

  it("reads a table as rows of cells, each with its column header and row label", () => {
    const text = rtfText(rtf(["Before"], { tables: [[["Ad", "Паспорт"], ["Ali", "C01234567"], ["Veli", "C07654321"]]] }).toString("latin1") + "");
    expect(text).toBe(["Before", "", "Ad | Паспорт", "Ad: Ali", "Ali Паспорт: C01234567", "", "Ad: Veli", "Veli Паспорт: C07654321"].join("\n"));
  });

  it("ends a table at the first paragraph outside it", () => {
    const src = doc(String.raw`\trowd\cellx1000\cellx2000\pard\intbl Name\cell SWIFT\cell\row\trowd\cellx1000\cellx2000\pard\intbl Kaya\cell TGBATRIS\cell\row\pard After the table\par`);
    expect(rtfText(src)).toBe(["Name | SWIFT", "Name: Kaya", "Kaya SWIFT: TGBATRIS", "", "After the table"].join("\n"));
  });

  it("reads what Word writes: a 1 MB document decodes to its lines", () => {
    const lines = Array.from({ length: 8000 }, (_, i) => `Line ${i}: Müşteri Əliyev, сумма ${i * 3}`);
    expect(rtfText(rtf(lines))).toBe(lines.join("\n"));
  });
});
