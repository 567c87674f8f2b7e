// The card detector on its own: the exact match (value, mask, span, `full`) for each way a card
// number is written, both sides of every issuer range and length, and the numbers that look like
// cards but are not (Luhn, grouping, neighbours, dates). Numbers are Luhn-valid test numbers
// unless a case says otherwise. The corpus-level precision and recall are in quality.test.ts.
import { describe, expect, it } from "vitest";
import { detectCards, luhn, maskCard, schemeAccepts } from "./card.ts";

const found = (text: string) => detectCards(text).map(({ value, masked, start, end, full }) => ({ value, masked, text: text.slice(start, end), full }));
const card = (value: string, text: string, full = false) => ({ value, masked: maskCard(value), text, full });

describe("luhn", () => {
  it("accepts valid numbers and refuses one digit off", () => {
    for (const n of ["4111111111111111", "5500000000000004", "378282246310005", "30569309025904", "0"]) expect([n, luhn(n)]).toEqual([n, true]);
    for (const n of ["4111111111111112", "4111111111111121", "5500000000000005", "378282246310006", "1"]) expect([n, luhn(n)]).toEqual([n, false]);
  });

  it("doubles every second digit from the right, subtracting 9 above 9", () => {
    // 59: 5*2 = 10 -> 1, + 9 = 10. 18: 1*2 = 2, + 8 = 10. 91: 9*2 = 18 -> 9, + 1 = 10.
    for (const n of ["59", "18", "91", "0000000000000"]) expect([n, luhn(n)]).toEqual([n, true]);
    for (const n of ["95", "81", "19"]) expect([n, luhn(n)]).toEqual([n, false]);
  });
});

describe("issuer ranges and lengths", () => {
  const table: Array<[string, boolean, string]> = [
    ["4000000000006", true, "Visa 13"], ["4000000000000002", true, "Visa 16"], ["4000000000000000006", true, "Visa 19"], ["400000000000006", false, "Visa 15"],
    ["5100000000000008", true, "Mastercard 51"], ["5500000000000004", true, "Mastercard 55"], ["5500000000000000004", false, "Mastercard 19"],
    ["5000000000000009", true, "50 is Maestro"], ["5600000000000000002", true, "56 is Maestro, 19 digits"],
    ["2221000000000009", true, "Mastercard 2221"], ["2720000000000005", true, "Mastercard 2720"], ["2220000000000000", false, "2220"], ["2721000000000004", false, "2721"],
    ["2200000000000004", true, "Mir 16"], ["2200000000000000004", true, "Mir 19"], ["2204000000000000006", true, "Mir 2204"], ["2205000000000000003", false, "2205"], ["2199000000000007", false, "2199"], ["220000000000004", false, "Mir 15"],
    ["340000000000009", true, "Amex 34"], ["370000000000002", true, "Amex 37"], ["350000000000006", false, "35 15"], ["3400000000000000", false, "Amex 16"],
    ["30000000000004", true, "Diners 300"], ["30500000000003", true, "Diners 305"], ["30600000000001", false, "306"], ["36000000000008", true, "Diners 36"],
    ["38000000000006", true, "Diners 38"], ["39000000000005", true, "Diners 39"], ["3600000000000000004", true, "Diners 19"], ["3600000000004", false, "Diners 13"],
    ["3528000000000007", true, "JCB 3528"], ["3589000000000000009", true, "JCB 3589 19"], ["3527000000000008", false, "3527"], ["3590000000000000", false, "3590"], ["352800000000007", false, "JCB 15"],
    ["6011000000000004", true, "Discover 6011"], ["6011000000000000001", true, "Discover 19"], ["601100000000001", false, "Discover 15"], ["6500000000000000003", true, "Discover 65"],
    ["6440000000000005", true, "Discover 644"], ["6490000000000004", true, "Discover 649"], ["644000000000002", false, "Discover 644, 15"], ["649000000000007", false, "Discover 649, 15"],
    ["650000000000003", false, "Discover 65, 15"], ["643000000000003", true, "643 is Maestro, 15"], ["640000000000006", true, "64 is Maestro, 15"],
    ["6221260000000000", true, "622126"], ["6229250000000003", true, "622925"],
    ["6200000000000005", true, "UnionPay 62"], ["8100000000000002", true, "UnionPay 81"], ["810000000000000", false, "UnionPay 15"], ["620000000000000", false, "62, 15"],
    ["500000000009", true, "Maestro 12"], ["690000000008", true, "Maestro 69"], ["50000000005", false, "Maestro 11"], ["50000000000000000000", false, "Maestro 20"],
    ["222100000000000", false, "Mastercard 2-series 15"], ["22000000000000000004", false, "Mir 20"], ["36000000000000000008", false, "Diners 20"], ["35280000000000000007", false, "JCB 20"],
    ["60110000000000000004", false, "Discover 20"], ["62000000000000000005", false, "UnionPay 20"], ["6200000000000000000", true, "UnionPay 19"], ["81000000000000000002", false, "UnionPay 81, 20"],
    ["9000000000000001", true, "national 9000"], ["90000000000000001", false, "national 17"], ["8999000000000006", false, "8999"], ["7000000000000005", false, "7"],
  ];
  it.each(table)("%s: %s (%s)", (digits, accepted) => {
    expect(schemeAccepts(digits)).toBe(accepted);
  });
});

describe("masking", () => {
  it("keeps the first and last four, stars grouped by four", () => {
    expect(maskCard("4111111111111111")).toBe("4111 **** **** 1111");
    expect(maskCard("4000000000006")).toBe("4000 **** * 0006");
    expect(maskCard("4000000000000000006")).toBe("4000 **** **** *** 0006");
    expect(maskCard("378282246310005")).toBe("3782 **** *** 0005");
  });
});

describe("finding card numbers in text", () => {
  it("together, in groups of four with spaces or dashes, and Amex/Diners groupings", () => {
    expect(found("Card 4111111111111111 thanks")).toEqual([card("4111111111111111", "4111111111111111")]);
    expect(found("Card 4111 1111 1111 1111 thanks")).toEqual([card("4111111111111111", "4111 1111 1111 1111")]);
    expect(found("Card 4111-1111-1111-1111.")).toEqual([card("4111111111111111", "4111-1111-1111-1111")]);
    expect(found("Amex 3782 822463 10005 ok")).toEqual([card("378282246310005", "3782 822463 10005")]);
    expect(found("Diners 3056 930902 5904 ok")).toEqual([card("30569309025904", "3056 930902 5904")]);
    expect(found("Visa: 4000 0000 0000 0000 006")).toEqual([card("4000000000000000006", "4000 0000 0000 0000 006")]);
    expect(found("Visa: 4000 0000 0000 6")).toEqual([card("4000000000006", "4000 0000 0000 6")]);
  });

  it("reports where each number stands, several in one text", () => {
    const text = "a 4111111111111111 b\nc 5500 0000 0000 0004";
    expect(detectCards(text).map((m) => [m.type, m.start, m.end])).toEqual([["card", 2, 18], ["card", 23, 42]]);
  });

  // Issue 40: how the digits are grouped or separated is the sender's choice and never decides
  // (the grouping rule of issue 31 let "4111 1111 1111 11 11" through and missed UnionPay's 6+13).
  it("finds a valid number however its digits are grouped or separated", () => {
    const table: [string, string][] = [
      ["4000 000000 0000 02", "4000000000000002"],
      ["40000 000000 00002", "4000000000000002"],
      ["4111 1111-1111 1111", "4111111111111111"],
      ["41111 111 1111 1111", "4111111111111111"],
      ["4111  1111 1111 1111", "4111111111111111"],
      ["4111 1111 1111 11 11", "4111111111111111"],
      ["4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "4111111111111111"],
      ["626239-2402764723791", "6262392402764723791"],
      ["4111.1111.1111.1111", "4111111111111111"],
      ["4111/1111/1111/1111", "4111111111111111"],
      ["4111_1111_1111_1111", "4111111111111111"],
      ["4111 \u2013 1111 \u2013 1111 \u2013 1111", "4111111111111111"],
      ["4111\t1111\t1111\t1111", "4111111111111111"],
      ["4111, 1111, 1111, 1111", "4111111111111111"],
    ];
    for (const [text, value] of table) expect([text, found(`card ${text} ok`).map((f) => f.value)]).toEqual([text, [value]]);
  });

  it("a run longer than a card: its valid numbers of whole groups, with a few other digits around them", () => {
    expect(found("ref 00 4111 1111 1111 1111").map((f) => f.text)).toEqual(["4111 1111 1111 1111"]);
    expect(found("4111 1111 1111 1111 5500 0000 0000 0004").map((f) => f.value)).toEqual(["4111111111111111", "5500000000000004"]);
    expect(found("1 4111111111111111").map((f) => f.value)).toEqual(["4111111111111111"]);
    // A 22-digit tracking number in groups of four holds a valid 16-digit prefix: it is a number of its own.
    expect(found("9400 1000 0000 0000 0000 00")).toEqual([]);
    expect(found("4111 1111 1111 1111 2222 3333 4")).toEqual([]);
    // Four separator characters end a run.
    expect(found("4111 1111    1111 1111")).toEqual([]);
  });

  it("refuses Luhn-invalid numbers, unknown issuers, wrong lengths and repeated digits", () => {
    // 500000000009 is a Luhn-valid 12-digit Maestro number: the scheme allows 12, the detector starts at 13.
    for (const text of ["4111111111111112", "7000000000000005", "400000000000006", "411111111111", "41111111111111111111", "6666666666666", "500000000009"]) {
      expect([text, found(text)]).toEqual([text, []]);
    }
    // The same 13-digit Maestro shape with two different digits is a card: only the repetition was refused.
    expect(found("6666666666674")).toEqual([card("6666666666674", "6666666666674")]);
  });

  it("refuses numbers glued to letters, a phone number's +, or one long run of digits", () => {
    for (const text of ["x4111111111111111", "+4111111111111111", "\\4111111111111111", "_4111111111111111", "+1 4111111111111111", "4111111111111111x", "4111111111111111_", "14111111111111111"]) {
      expect([text, found(text)]).toEqual([text, []]);
    }
    // A full stop that ends a sentence is not a decimal.
    expect(found("pay with 4111111111111111.")).toEqual([card("4111111111111111", "4111111111111111")]);
  });

  it("a date right after the number is not part of it, and makes it full", () => {
    expect(found("4111 1111 1111 1111 12/27")).toEqual([card("4111111111111111", "4111 1111 1111 1111", true)]);
    expect(found("4111 1111 1111 1111 12.27")).toEqual([card("4111111111111111", "4111 1111 1111 1111")]);
  });
});

describe("full: a CVV or an expiry next to the number", () => {
  it("an expiry within 40 characters after", () => {
    expect(found("4111111111111111 exp 01/2030")[0].full).toBe(true);
    expect(found("4111111111111111 valid thru 12 / 29")[0].full).toBe(true);
    expect(found("4111111111111111 exp 09-29")[0].full).toBe(true);
    expect(found(`4111111111111111 ${"x".repeat(30)} 12/29`)[0].full).toBe(true);
    expect(found(`4111111111111111 ${"x".repeat(40)} 12/29`)[0].full).toBe(false);
  });

  it("not a month, or a longer number, is no expiry", () => {
    expect(found("4111111111111111 on 13/29")[0].full).toBe(false);
    expect(found("4111111111111111 on 00/29")[0].full).toBe(false);
    expect(found("4111111111111111 ref 112/29")[0].full).toBe(false);
    expect(found("4111111111111111 ref 12/293")[0].full).toBe(false);
  });

  it("a CVV after the number, or within 40 characters before it", () => {
    expect(found("4111111111111111 CVV: 123")[0].full).toBe(true);
    expect(found("4111111111111111 cvc2 1234")[0].full).toBe(true);
    expect(found("4111111111111111 код безопасности 123")[0].full).toBe(true);
    expect(found("CVV 123, card 4111111111111111")[0].full).toBe(true);
    expect(found(`${"x".repeat(30)} CVV 123, card 4111111111111111`)[0].full).toBe(true);
    expect(found("4111111111111111 CVC: 123")[0].full).toBe(true);
    expect(found("4111111111111111 CID 1234")[0].full).toBe(true);
    expect(found(`CVV 123 ${"x".repeat(40)} 4111111111111111`)[0].full).toBe(false);
    expect(found("4111111111111111 CVV 12345")[0].full).toBe(false);
    expect(found("4111111111111111 CVV 12")[0].full).toBe(false);
    expect(found("4111111111111111 recvv 123")[0].full).toBe(false);
    expect(found("4111111111111111 cvvx 123")[0].full).toBe(false);
    expect(found("4111111111111111 təhlükəsizlik kodu: 123")[0].full).toBe(true);
    expect(found("4111111111111111 Security Code 123")[0].full).toBe(true);
  });

  it("an expiry right before the number on its line, with or without a label", () => {
    expect(found("Exp 12/29: 4111111111111111")[0].full).toBe(true);
    expect(found("valid: 01/30, 4111111111111111")[0].full).toBe(true);
    expect(found("valid thru 01/30, 4111111111111111")[0].full).toBe(true);
    expect(found("expiry: 01 / 30 - 4111111111111111")[0].full).toBe(true);
    expect(found("12/2029 4111 1111 1111 1111")[0].full).toBe(true);
    expect(found("Exp 12/29 4111111111111111")[0].full).toBe(true);
    expect(found("exp 13/29: 4111111111111111")[0].full).toBe(false);
    // A date is no expiry, nor a month and year too far before; on the line above it counts after an expiry label.
    expect(found("on 12/01/2029: 4111111111111111")[0].full).toBe(false);
    expect(found("12/29\n4111111111111111")[0].full).toBe(false);
    expect(found("exp 12/29\n4111111111111111")[0].full).toBe(true);
    expect(found(`exp 12/29 ${"x".repeat(30)} 4111111111111111`)[0].full).toBe(false);
  });

  it("nothing around it: not full", () => {
    expect(found("4111111111111111")[0].full).toBe(false);
  });
});

describe("UnionPay numbers without a Luhn digit", () => {
  it("count after a card label on their line, not alone", () => {
    expect(detectCards("UnionPay card 6217 8500 0000 0000 001").map((m) => m.value)).toEqual(["6217850000000000001"]);
    expect(detectCards("Номер карты: 6282000000000000").map((m) => m.value)).toEqual(["6282000000000000"]);
    expect(detectCards("Order 6217 8500 0000 0000 001 shipped")).toEqual([]);
    expect(detectCards("card\n6282000000000000")).toEqual([]);
    // Another scheme's number still needs its Luhn digit after a label.
    expect(detectCards("card 4111 1111 1111 1112")).toEqual([]);
  });
});
