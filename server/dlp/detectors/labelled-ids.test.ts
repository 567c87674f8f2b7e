// The detectors of identifiers that count only after a label (FİN, VÖEN, SWIFT/BIC): exact
// matches for each label and written form, and the same value without a label, with a wrong
// shape, or glued to other characters, found nothing.
import { describe, expect, it } from "vitest";
import { detectFin, maskMiddle } from "./fin.ts";
import { detectSwift } from "./swift.ts";
import { detectVoen } from "./voen.ts";
import type { Match } from "./detector.ts";

const view = (text: string, matches: Match[]) => matches.map(({ type, value, masked, start, end }) => ({ type, value, masked, text: text.slice(start, end) }));

describe("maskMiddle", () => {
  it("keeps `keep` characters at each end", () => {
    expect(maskMiddle("5ZX8K2P")).toBe("5*****P");
    expect(maskMiddle("1401555071", 2)).toBe("14******71");
    expect(maskMiddle("ab", 2)).toBe("abab");
  });
});

describe("FİN", () => {
  const fin = (text: string) => view(text, detectFin(text));
  const hit = [{ type: "fin", value: "5ZX8K2P", masked: "5*****P", text: "5ZX8K2P" }];

  it("after each label, on its line or the line above", () => {
    for (const text of ["FİN: 5ZX8K2P", "FIN kodu 5ZX8K2P", "fin 5ZX8K2P", "fın: 5ZX8K2P", "PIN: 5ZX8K2P", "PİN 5ZX8K2P", "ФИН: 5ZX8K2P", "ПИН 5ZX8K2P", "Personal No. 5ZX8K2P", "personal number: 5ZX8K2P",
      "personal identification 5ZX8K2P", "Fərdi identifikasiya nömrəsi: 5ZX8K2P", "şəxsi identifikasiya: 5ZX8K2P",
      "personal  no 5ZX8K2P", "fərdi  identifikasiya 5ZX8K2P", "şəxsi\tidentifikasiya 5ZX8K2P", "şəxsi  identifikasiya 5ZX8K2P", "FİN\n5ZX8K2P"]) {
      expect([text, fin(text)]).toEqual([text, hit]);
    }
  });

  it("the digit may stand anywhere in the code", () => {
    expect(fin("FIN: AZXBKP2")).toEqual([{ type: "fin", value: "AZXBKP2", masked: "A*****2", text: "AZXBKP2" }]);
  });

  it("needs the label: none, inside a word, or too far", () => {
    for (const text of ["5ZX8K2P", "FINE 5ZX8K2P", "Elfin 5ZX8K2P", `FIN ${"x".repeat(30)} 5ZX8K2P`]) expect([text, fin(text)]).toEqual([text, []]);
  });

  it("needs the shape: 7 capitals and digits, a digit and a letter, never O, not glued to more", () => {
    for (const text of ["FIN: 1234567", "FIN: ABCDEFG", "FIN: 5ZO8K2P", "FIN: 5zx8k2p", "FIN: 5ZX8K2", "FIN: 5ZX8K2PQ", "FIN: -5ZX8K2P", "FIN: 5ZX8K2P-", "FIN: x5ZX8K2P", "FIN: 5ZX8K2P_", "FIN: 5ZX8K2PÄ"]) {
      expect([text, fin(text)]).toEqual([text, []]);
    }
  });

  it("several in one text, where they stand", () => {
    const text = "FIN: 5ZX8K2P, FIN: 7AB12CD";
    expect(detectFin(text).map((m) => [m.value, m.start, m.end])).toEqual([["5ZX8K2P", 5, 12], ["7AB12CD", 19, 26]]);
  });
});

describe("VÖEN", () => {
  const voen = (text: string) => view(text, detectVoen(text));

  it("after each label, together or as 3-3-4, legal (1) or natural (2) person", () => {
    for (const label of ["VÖEN:", "VOEN", "ВОЕН", "TIN", "ИНН", "tax id", "Tax ID:", "TaxID", "taxpayer identification", "tax payer id", "tax payer  id", "tax number", "tax no", "taxpayer", "vergi ödəyicisi",
      "vergi  ödəyicisi", "eyniləşdirmə nömrəsi", "eyniləşdirmə  nömrəsi", "налогоплательщик", "Company VÖEN", "Şirkətin VÖEN-i", "Firm TIN"]) {
      const text = `${label} 1401555071`;
      expect([text, voen(text)]).toEqual([text, [{ type: "voen", value: "1401555071", masked: "14******71", text: "1401555071" }]]);
    }
    expect(voen("VÖEN: 140 155 5072")).toEqual([{ type: "voen", value: "1401555072", masked: "14******72", text: "140 155 5072" }]);
    expect(voen("VÖEN\n1401555071")).toHaveLength(1);
  });

  it("refuses other last digits, other lengths, two separators in a row, and numbers glued to more", () => {
    for (const text of ["VÖEN: 1401555073", "VÖEN: 1401555070", "VÖEN: 140155507", "VÖEN: 14015550711", "VÖEN: +1401555071", "VÖEN: 1401555071-5",
      "VÖEN: 1401555071 5", "VÖEN: 5 1401555071", "VÖEN: 1400057421 1401555071", "VÖEN: x1401555071", "VÖEN: 1401555071x", "VÖEN: 1401555071.5", "VÖEN: 140  155 5071"]) {
      expect([text, voen(text)]).toEqual([text, []]);
    }
  });

  // Issue 40: the grouping is the sender's choice (3-3-4 was the only one read before).
  it("reads any grouping with single spaces, dots or dashes", () => {
    for (const text of ["VÖEN: 140 1555071", "VÖEN: 1401 555071", "VÖEN: 1401555 071", "VÖEN: 14-01-55-50-71", "VÖEN: 140.155.5071", "VÖEN: 1 4 0 1 5 5 5 0 7 1"]) {
      expect([text, voen(text).map((m) => m.value)]).toEqual([text, ["1401555071"]]);
    }
  });

  it("needs a label within 60 characters, not inside a word", () => {
    expect(voen("1401555071")).toEqual([]);
    expect(voen("TINY 1401555071")).toEqual([]);
    expect(voen(`VÖEN ${"x".repeat(60)} 1401555071`)).toEqual([]);
    expect(voen(`VÖEN ${"x".repeat(50)} 1401555071`)).toHaveLength(1);
  });
});

describe("SWIFT/BIC", () => {
  const swift = (text: string) => view(text, detectSwift(text));

  it("after each label: 8 or 11 characters, masked after the country", () => {
    for (const label of ["SWIFT:", "swift code", "BIC:", "BIC/SWIFT", "bic: ", "S.W.I.F.T.", "bank identifier code", "SVİFT", "svift", "СВИФТ", "БИК"]) {
      const text = `${label} DEUTDEFF`;
      expect([text, swift(text)]).toEqual([text, [{ type: "swift", value: "DEUTDEFF", masked: "DEUTDE**", text: "DEUTDEFF" }]]);
    }
    expect(swift("SWIFT: DEUTDEFF500")).toEqual([{ type: "swift", value: "DEUTDEFF500", masked: "DEUTDE*****", text: "DEUTDEFF500" }]);
    expect(swift("SWIFT\nDEUTDEFF")).toHaveLength(1);
    // The label is a word start: SWIFT-code, swiftcode count too.
    expect(swift("SWIFTcode DEUTDEFF")).toHaveLength(1);
  });

  it("or beside a valid IBAN on the same line", () => {
    expect(swift("DE89370400440532013000 DEUTDEFF")).toHaveLength(1);
    expect(swift("DE89370400440532013000\nDEUTDEFF")).toEqual([]);
    expect(swift("DEUTDEFF DE89370400440532013000")).toHaveLength(1);
    expect(swift("DEUTDEFF\nDE89370400440532013000")).toEqual([]);
    expect(swift("x\nDEUTDEFF\nDE89370400440532013000\ny")).toEqual([]);
    expect(swift("DE88370400440532013000 DEUTDEFF")).toEqual([]);
  });

  it("refuses a shape without label or IBAN, an unknown country, lower case, other lengths, glued tokens", () => {
    for (const text of ["DEUTDEFF", "SWIFT: DEUTXXFF", "SWIFT: deutdeff", "SWIFT: DEUTDEF", "SWIFT: DEUTDEFF5", "SWIFT: DEUTDEFF5000", "SWIFT: DEUTDEFF-", "SWIFT: -DEUTDEFF", "SWIFT: DEUTDEFF_x", "BICYCLE DEUTDEFF", "АБИК DEUTDEFF", "БИКА DEUTDEFF",
      `SWIFT ${"x".repeat(30)} DEUTDEFF`]) {
      expect([text, swift(text)]).toEqual([text, []]);
    }
  });

  it("several in one text, where they stand", () => {
    const text = "BIC: DEUTDEFF, BIC: NABZAZ2C";
    expect(detectSwift(text).map((m) => [m.value, m.start, m.end])).toEqual([["DEUTDEFF", 5, 13], ["NABZAZ2C", 20, 28]]);
  });
});
