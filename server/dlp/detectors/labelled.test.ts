// The context rules the label-based detectors share (detector.ts) and the precedence of all
// detectors (index.ts), with exact results: which text counts as the label's line, when a label
// on the line above counts, what may stand between a label and its value, and which type keeps
// an overlapping span.
import { describe, expect, it } from "vitest";
import { labelBefore, labelled, lineBefore, match } from "./detector.ts";
import { detect, TEXT_TYPES } from "./index.ts";

describe("lineBefore", () => {
  it("is the text before the index on its line, at most max characters", () => {
    expect(lineBefore("abc\ndef ghi", 10, 40)).toBe("def gh");
    expect(lineBefore("abcdef", 6, 3)).toBe("def");
    expect(lineBefore("abcdef", 6, 6)).toBe("abcdef");
    expect(lineBefore("abc\n", 4, 40)).toBe("");
    expect(lineBefore("abcdef", 2, 40)).toBe("ab");
    expect(lineBefore("a\nbc", 4, 40)).toBe("bc");
  });
});

describe("labelBefore", () => {
  it("is the same line when it has content before the value", () => {
    expect(labelBefore("Label\nIBAN: X", 12, 40)).toBe("IBAN: ");
  });

  it("is the line above when the value starts its line, or only a quote, bracket or separator precede it", () => {
    expect(labelBefore("Passport\nC01234567", 9, 40)).toBe("Passport");
    expect(labelBefore("Passport\n  \"C01234567", 12, 40)).toBe("Passport");
    for (const opener of ["'", "«", "(", "[", "{", "|", ",", ";", ":", "»", "\t"]) expect(labelBefore(`Passport\n${opener}C`, 10, 40)).toBe("Passport");
  });

  it("on the first line there is no line above", () => {
    expect(labelBefore("  X", 2, 40)).toBe("  ");
    expect(labelBefore("  XYZ", 2, 40)).toBe("  ");
    expect(labelBefore("X", 0, 40)).toBe("");
  });

  it("the line above is read up to max characters too", () => {
    expect(labelBefore("xxxxxxxxxx Passport\nC", 20, 8)).toBe("Passport");
  });
});

describe("labelled", () => {
  const label = /passport/i;
  const shape = /[A-Z0-9]{6,10}/;
  const at = (text: string, value: string) => labelled(text, text.indexOf(value), 40, label, shape);

  it("a label before the value, with words and separators between", () => {
    expect(at("Passport: C01234567", "C01234567")).toBe(true);
    expect(at("passport number is C01234567", "C01234567")).toBe(true);
    expect(at("Passport\nC01234567", "C01234567")).toBe(true);
  });

  it("other values of the same shape between are fine, other digits are not", () => {
    expect(at("Passports: AB123456, C01234567", "C01234567")).toBe(true);
    expect(at("Passports: AB123456, CD123456, C01234567", "C01234567")).toBe(true);
    expect(at("passport issued 2019, phone 5551234567", "5551234567")).toBe(false);
  });

  it("the last label counts, and a label too far away does not", () => {
    expect(at("passport 12, passport C01234567", "C01234567")).toBe(true);
    expect(at(`Passport ${"x".repeat(40)} C01234567`, "C01234567")).toBe(false);
    expect(at("no label C01234567", "C01234567")).toBe(false);
  });

  it("works with labels and shapes that already carry the g flag", () => {
    const text = "Passport: 12 C01234567";
    expect(labelled(text, text.indexOf("C0"), 40, /passport/gi, /[A-Z0-9]{2,10}/g)).toBe(true);
  });
});

describe("detect: every detector, precedence, and the enabled types", () => {
  it("lists the text types in precedence order", () => {
    expect(TEXT_TYPES).toEqual(["secret", "track", "iban", "card", "swift", "voen", "fin", "passport", "confidential"]);
  });

  it("a card inside a track is the track only", () => {
    const text = ";4111111111111111=2712101?";
    expect(detect(text, new Set(["card", "track"])).map((m) => m.type)).toEqual(["track"]);
    // Disabled types still claim their span: the card is not reported in the track's place.
    expect(detect(text, new Set(["card"]))).toEqual([]);
  });

  it("reports only the enabled types, sorted by position", () => {
    const text = "Passport: C01234567 card 4111111111111111 IBAN DE89370400440532013000";
    expect(detect(text, new Set(["card", "iban", "passport"])).map((m) => [m.type, m.start])).toEqual([["passport", 10], ["card", 25], ["iban", 47]]);
    expect(detect(text, new Set(["iban"])).map((m) => m.type)).toEqual(["iban"]);
  });

  it("a match that only touches an earlier one is kept", () => {
    expect(match("card", "v", "m", 1, 2)).toEqual({ type: "card", value: "v", masked: "m", full: false, start: 1, end: 2 });
    const text = "4111111111111111 DE89370400440532013000";
    expect(detect(text, new Set(["card", "iban"])).map((m) => [m.type, m.start, m.end])).toEqual([["iban", 17, 39], ["card", 0, 16]].sort((a, b) => (a[1] as number) - (b[1] as number)));
  });
});
