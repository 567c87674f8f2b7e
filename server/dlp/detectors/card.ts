// card: a payment card number (PAN). 13 to 19 digits, written together or in groups separated by
// one space or one dash; Luhn-valid; the prefix of a card scheme that issues that length. The
// scheme check matters: Luhn alone passes one random number in ten, so order and invoice numbers
// of the right length would pass it. `full` when a CVV/CVC or an expiry date (MM/YY) stands within
// 40 characters after the number or 20 before it.
import { lineBefore, match, type Match } from "./detector.ts";

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

/**
 * Issuer prefixes (IIN ranges) and the lengths each scheme issues, from the schemes' published
 * ranges (docs/decisions.md DLP10 has the table and its sources). A number passes when one
 * range holding its prefix issues its length; overlapping ranges (Discover inside UnionPay's 62,
 * RuPay's 60 inside Maestro's) each add their lengths.
 */
const schemes: [from: string, to: string, lengths: number[], name: string][] = [
  ["4", "4", [13, 16, 19], "Visa (incl. Electron, Elo and Dankort co-brands)"],
  ["51", "55", [16], "Mastercard"],
  ["2221", "2720", [16], "Mastercard 2-series"],
  ["2200", "2204", [16, 17, 18, 19], "Mir"],
  ["2205", "2205", [16], "Borica"],
  ["34", "34", [15], "American Express"],
  ["37", "37", [15], "American Express"],
  ["300", "305", [14, 15, 16, 17, 18, 19], "Diners Club International"],
  ["3095", "3095", [14, 15, 16, 17, 18, 19], "Diners Club International"],
  ["36", "36", [14, 15, 16, 17, 18, 19], "Diners Club International"],
  ["38", "39", [14, 15, 16, 17, 18, 19], "Diners Club International"],
  ["31", "31", [19], "China T-Union"],
  ["3528", "3589", [16, 17, 18, 19], "JCB (and RuPay-JCB 353, 356)"],
  ["6011", "6011", [16, 17, 18, 19], "Discover"],
  ["644", "649", [16, 17, 18, 19], "Discover"],
  ["65", "65", [16, 17, 18, 19], "Discover, RuPay, Troy, Verve"],
  ["622126", "622925", [16, 17, 18, 19], "Discover (UnionPay co-brand)"],
  ["62", "62", [16, 17, 18, 19], "UnionPay"],
  ["81", "81", [16, 17, 18, 19], "UnionPay 81, RuPay"],
  ["82", "82", [16], "RuPay"],
  ["8600", "8600", [16], "UzCard"],
  ["1946", "1946", [16, 18, 19], "GPN (Indonesia)"],
  ["9", "9", [16], "national schemes: Troy 9792, Humo 9860, ArCa 9051, BelCard 9112, Prostir 9804"],
  // Fallbacks, last (see below).
  ["50", "50", [12, 13, 14, 15, 16, 17, 18, 19], "Maestro, Verve 5060-5061, RuPay 508, Dankort 5019"],
  ["56", "69", [12, 13, 14, 15, 16, 17, 18, 19], "Maestro, RuPay 60, InterPayment 636, InstaPayment 637-639, UkrCard 604"],
];

// Maestro's 50 and 56-69 are what is left of those prefixes: they decide only where no other
// scheme's range holds the number (a 15-digit 6011... is no Discover card, nor a Maestro one).
const fallback = 2;

export function schemeAccepts(d: string): boolean {
  const n = d.length;
  if (n > 19) return false;
  let held = false;
  for (const [i, [from, to, lengths]] of schemes.entries()) {
    if (held && i >= schemes.length - fallback) break;
    const prefix = d.slice(0, from.length);
    if (prefix < from || prefix > to) continue;
    if (lengths.includes(n)) return true;
    held = true;
  }
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

// UnionPay does not require the Luhn digit on every card it issues (62, 16 to 19 digits): such a
// number counts when a card label stands before it on its line, as for the labelled types (Chinese
// has no spaces between words: 银联卡, 卡号 count wherever they stand).
const cardLabel = /(?<![\p{L}])(?:card|cards|kart|kartı|kartın|карта|карты|карту|карточк\p{L}*|unionpay|union pay|pan)(?![\p{L}])|银联|卡号|卡/iu;

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
    if (!plausibleGrouping(raw) || !schemeAccepts(digits)) continue;
    if (!luhn(digits) && !(digits.startsWith("62") && cardLabel.test(lineBefore(text, m.index, 40)))) continue;
    if (/^(\d)\1+$/.test(digits)) continue;
    const start = m.index;
    const end = start + raw.length;
    out.push(match("card", digits, maskCard(digits), start, end, isFull(text, start, end)));
  }
  return out;
}
