// The passport detector on its own: the machine-readable line (ICAO 9303 TD3, line 2) with its
// check digits, and labelled numbers in the shapes passports use; exact values, masks and spans,
// and the near misses (a check digit off, too few digits, too many letters, no label, glued).
import { describe, expect, it } from "vitest";
import { detectPassports, mrzCheck } from "./passport.ts";

const found = (text: string) => detectPassports(text).map(({ type, value, masked, start, end }) => ({ type, value, masked, text: text.slice(start, end) }));
// ICAO 9303 part 4's specimen: document L898902C3 (check 6), born 740812 (check 2), expires 120415 (check 9).
const MRZ = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";

describe("mrzCheck", () => {
  it("weights 7-3-1, letters from 10, filler 0", () => {
    expect(mrzCheck("L898902C3")).toBe(6);
    expect(mrzCheck("740812")).toBe(2);
    expect(mrzCheck("120415")).toBe(9);
    expect(mrzCheck("<<<")).toBe(0);
    expect(mrzCheck("A")).toBe(0); // 10 * 7 = 70
    expect(mrzCheck("B")).toBe(7); // 11 * 7 = 77
    expect(mrzCheck("1A")).toBe(7); // 1*7 + 10*3 = 37
    expect(mrzCheck("001")).toBe(1);
    expect(mrzCheck("01")).toBe(3);
    expect(mrzCheck("1")).toBe(7);
  });
});

describe("machine-readable line", () => {
  it("is found without a label when both check digits hold", () => {
    expect(found(`P<UTOERIKSSON<<ANNA<MARIA\n${MRZ}`)).toEqual([{ type: "passport", value: "L898902C3", masked: "L8*****C3", text: MRZ }]);
  });

  it("a document number padded with filler is reported without it", () => {
    // The check digit from mrzCheck, which the specimen values above pin down.
    const doc = "AB12345<<";
    const line = `${doc}${mrzCheck(doc)}UTO7408122F1204159ZE184226B<<<<<10`;
    expect(found(line)).toEqual([{ type: "passport", value: "AB12345", masked: "AB***45", text: line }]);
  });

  it("a wrong document or birth-date check digit is not a passport line", () => {
    expect(found(MRZ.replace("C36", "C37"))).toEqual([]);
    expect(found(MRZ.replace("7408122", "7408123"))).toEqual([]);
  });

  it("labelled numbers before and after a machine-readable line are found too", () => {
    const text = `Passport: C01234567\n${MRZ}\nPassport: AA7654321`;
    expect(found(text).map((m) => m.value)).toEqual(["L898902C3", "C01234567", "AA7654321"]);
  });

  it("glued to more MRZ characters it is not line 2", () => {
    expect(found(`X${MRZ}`)).toEqual([]);
    expect(found(`${MRZ}1`)).toEqual([]);
  });
});

describe("labelled numbers", () => {
  const hit = (value: string, masked: string, text: string) => [{ type: "passport", value, masked, text }];

  it("after each label, in each shape", () => {
    expect(found("Passport: C01234567")).toEqual(hit("C01234567", "C0*****67", "C01234567"));
    expect(found("passport no 123456789")).toEqual(hit("123456789", "12*****89", "123456789"));
    expect(found("pasport AA1234567")).toEqual(hit("AA1234567", "AA*****67", "AA1234567"));
    expect(found("Паспорт: 45 10 123456")).toEqual(hit("4510123456", "45******56", "45 10 123456"));
    expect(found("Паспорт: 4510 123456")).toEqual(hit("4510123456", "45******56", "4510 123456"));
    expect(found("Паспорт: 45 10123456")).toEqual(hit("4510123456", "45******56", "45 10123456"));
    expect(found("паспорт 72 1234567")).toEqual(hit("721234567", "72*****67", "72 1234567"));
    expect(found("Travel document: C01X00T47")).toEqual(hit("C01X00T47", "C0*****47", "C01X00T47"));
    expect(found("Travel  document: C01X00T47")).toEqual(hit("C01X00T47", "C0*****47", "C01X00T47"));
    expect(found("Passeport 123456")).toEqual(hit("123456", "12**56", "123456"));
    expect(found("Reisepass 1234567890")).toEqual(hit("1234567890", "12******90", "1234567890"));
    expect(found("Passport\nC01234567")).toHaveLength(1);
  });

  it("at least 5 digits and at most 4 letters, 6 to 10 characters", () => {
    expect(found("Passport: ABCD12345")).toHaveLength(1);
    expect(found("Passport: ABCDE1234")).toEqual([]);
    expect(found("Passport: ABCDE12345")).toEqual([]);
    expect(found("Passport: ABCD1234")).toEqual([]);
    expect(found("Passport: ABC12345")).toHaveLength(1);
    expect(found("Passport: 12345")).toEqual([]);
    expect(found("Passport: 12345678901")).toEqual([]);
  });

  it("needs the label, close enough", () => {
    expect(found("C01234567")).toEqual([]);
    expect(found(`Passport ${"x".repeat(40)} C01234567`)).toEqual([]);
  });

  it("refuses numbers glued to more: a phone prefix, a digit group before or after", () => {
    for (const text of ["Passport: +123456789", "Passport: 1 123456789", "Passport: 1-123456789", "Passport: 123456789-1", "Passport: 123456789 1", "Passport: x123456789", "Passport: 123456789x", "Passport: _123456789", "Passport: 123456789_", "Passport: 123456789 123456789"]) {
      expect([text, found(text)]).toEqual([text, []]);
    }
  });
});
