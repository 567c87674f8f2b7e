// The IBAN detector on its own: exact matches (value, mask, span) written together, in groups,
// in lower case, cut at the country's length before a following word; and the near misses:
// wrong checksum, unknown country, run into a longer word, broken grouping.
import { describe, expect, it } from "vitest";
import { detectIbans, maskIban } from "./iban.ts";

const found = (text: string) => detectIbans(text).map(({ type, value, masked, start, end }) => ({ type, value, masked, text: text.slice(start, end) }));
const iban = (value: string, text: string) => ({ type: "iban", value, masked: maskIban(value), text });

describe("maskIban", () => {
  it("keeps the country, check digits and the last four", () => {
    expect(maskIban("DE89370400440532013000")).toBe("DE89 **** 3000");
  });
});

describe("detectIbans", () => {
  it("finds an IBAN written together, in printed groups, or in lower case", () => {
    expect(found("IBAN: DE89370400440532013000.")).toEqual([iban("DE89370400440532013000", "DE89370400440532013000")]);
    expect(found("IBAN DE89 3704 0044 0532 0130 00 thanks")).toEqual([iban("DE89370400440532013000", "DE89 3704 0044 0532 0130 00")]);
    expect(found("iban de89 3704 0044 0532 0130 00")).toEqual([iban("DE89370400440532013000", "de89 3704 0044 0532 0130 00")]);
    expect(found("AZ21 NABZ 0000 0000 1370 1000 1944")).toEqual([iban("AZ21NABZ00000000137010001944", "AZ21 NABZ 0000 0000 1370 1000 1944")]);
    expect(found("NL91ABNA0417164300")).toEqual([iban("NL91ABNA0417164300", "NL91ABNA0417164300")]);
  });

  it("cuts the country's exact length when a word follows after a space", () => {
    expect(found("GB82 WEST 1234 5698 7654 32 BANK OF X")).toEqual([iban("GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32")]);
  });

  it("reports the span in the text, and several IBANs in one text", () => {
    const text = "a DE89370400440532013000 b GB82WEST12345698765432";
    expect(detectIbans(text).map((m) => [m.start, m.end])).toEqual([[2, 24], [27, 49]]);
  });

  it("finds an IBAN that starts inside a candidate that failed", () => {
    expect(found("DE12 GB82 WEST 1234 5698 7654 32")).toEqual([iban("GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32")]);
  });

  it("refuses a wrong checksum, an unknown country, a missing character, three separators in a row", () => {
    for (const text of ["DE88370400440532013000", "XX89370400440532013000", "DE8937040044053201300", "DE89 3704   0044 0532 0130 00", "DE89 3704 0044 0532 0130 0", "DE8 9370 4004 4053 2013 000"]) {
      expect([text, found(text)]).toEqual([text, []]);
    }
  });

  // Issue 40: the separators are the sender's choice.
  it("reads groups separated by one or two spaces, dashes, dots or slashes", () => {
    for (const text of ["DE89 3704  0044 0532 0130 00", "DE89-3704-0044-0532-0130-00", "DE89.3704.0044.0532.0130.00", "DE89/3704/0044/0532/0130/00", "DE 89 3704 0044 0532 0130 00", "DE89\u20133704\u20130044\u20130532\u20130130\u201300"]) {
      expect([text, found(text).map((m) => m.value)]).toEqual([text, ["DE89370400440532013000"]]);
    }
  });

  it("refuses an IBAN run into a longer word or number, on either side", () => {
    for (const text of ["DE89370400440532013000X", "DE890370400440532013000", "DE89370400440532013000ä", "xDE89370400440532013000", "1DE89370400440532013000", "DE89 3704 0044 0532 0130 00X"]) {
      expect([text, found(text)]).toEqual([text, []]);
    }
    // Punctuation after it is fine.
    expect(found("(DE89370400440532013000)")).toEqual([iban("DE89370400440532013000", "DE89370400440532013000")]);
  });
});
