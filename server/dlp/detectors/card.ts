// card: a payment card number (PAN). 13 to 19 digits, written together or in groups separated by
// one space or one dash; Luhn-valid; the prefix of a card scheme that issues that length. The
// scheme check matters: Luhn alone passes one random number in ten, so order and invoice numbers
// of the right length would pass it. `full` when a CVV/CVC or an expiry date (MM/YY) stands within
// 40 characters after the number or 20 before it.
import { match, type Match } from "./detector.ts";

// A run of digit groups joined by single spaces or dashes, not part of a longer number, a phone
// number (+...), a decimal or a path.
const run = /(?<![\p{L}\d+/\\_]|\d\.|\d[ -])\d+(?:[ -]\d+)*(?![\p{L}\d_]|\.\d)/gu;

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes and the lengths those schemes issue (ISO/IEC 7812 IIN ranges in use). */
export function schemeAccepts(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  const p6 = Number(d.slice(0, 6));
  if (d[0] === "4") return n === 13 || n === 16 || n === 19; // Visa
  if (p2 >= 51 && p2 <= 55) return n === 16; // Mastercard
  if (p4 >= 2221 && p4 <= 2720) return n === 16; // Mastercard 2-series
  if (p4 >= 2200 && p4 <= 2204) return n >= 16 && n <= 19; // Mir
  if (p2 === 34 || p2 === 37) return n === 15; // American Express
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return n >= 14 && n <= 19; // Diners
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19; // JCB
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) return n >= 16 && n <= 19; // Discover
  if (p2 === 62 || p2 === 81) return n >= 16 && n <= 19; // UnionPay
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return n >= 12 && n <= 19; // Maestro and other debit
  if (d[0] === "9") return n === 16; // national schemes (Troy and similar)
  return false;
}

/** Groups as cards are printed: one separator kind throughout, groups of 4 (Amex and Diners 4-6-5/4-6-4). */
function plausibleGrouping(raw: string): boolean {
  const seps = raw.match(/[ -]/g);
  if (!seps) return true;
  if (new Set(seps).size > 1) return false;
  const groups = raw.split(/[ -]/).map((g) => g.length);
  if (groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (groups[2] === 5 || groups[2] === 4)) return true;
  return groups.slice(0, -1).every((g) => g === 4) && groups[groups.length - 1] >= 1 && groups[groups.length - 1] <= 4;
}

export function maskCard(d: string): string {
  const middle = d.length - 8;
  const stars = "*".repeat(middle).replace(/(.{4})(?=.)/g, "$1 ");
  return `${d.slice(0, 4)} ${stars} ${d.slice(-4)}`;
}

const expiry = /(?<!\d)(0[1-9]|1[0-2]) ?[/-] ?(\d{2}|20\d{2})(?!\d)/;
// Word edges by Unicode letters, not \b: \b only knows ASCII, so "код безопасности" never matched.
const cvv = /(?<![\p{L}\d_])(?:cvv2?|cvc2?|cid|csc|cav2|security code|код безопасности|təhlükəsizlik kodu)(?![\p{L}\d_])[^\p{L}\d_]{0,3}\d{3,4}(?!\d)/iu;

function isFull(text: string, start: number, end: number): boolean {
  const after = text.slice(end, end + 40);
  const before = text.slice(Math.max(0, start - 20), start);
  return expiry.test(after) || cvv.test(after) || cvv.test(text.slice(Math.max(0, start - 40), end + 40)) || /(?:exp\w*|valid\w*)\W{0,3}(0[1-9]|1[0-2]) ?\/ ?\d{2}\W*$/i.test(before);
}

export function detectCards(text: string): Match[] {
  const out: Match[] = [];
  for (const m of text.matchAll(run)) {
    let raw = m[0];
    // Fewer than 13 characters cannot hold 13 digits: most numbers in a text end here.
    if (raw.length < 13) continue;
    // A date right after the number ("4111 ... 1111 12/27") is not part of it.
    if (/^[/.]\d/.test(text.slice(m.index + raw.length, m.index + raw.length + 2))) raw = raw.replace(/[ -]\d+$/, "");
    const digits = raw.replace(/[ -]/g, "");
    if (digits.length < 13 || digits.length > 19) continue;
    if (!plausibleGrouping(raw) || !schemeAccepts(digits) || !luhn(digits)) continue;
    if (/^(\d)\1+$/.test(digits)) continue;
    const start = m.index;
    const end = start + raw.length;
    out.push(match("card", digits, maskCard(digits), start, end, isFull(text, start, end)));
  }
  return out;
}
