// card: a payment card number (PAN). 13 to 19 digits, Luhn-valid, with the prefix of a card scheme
// that issues that length. The scheme check matters: Luhn alone passes one random number in ten, so
// order and invoice numbers of the right length would pass it. How the digits are grouped or
// separated is the sender's free choice (4111 1111 1111 11 11, 626239-2402764723791, dots, slashes,
// dashes of any kind, one to three separator characters), so it never decides: a run of digit groups
// is read as one number, and when it holds more digits than a card, as valid card numbers made of
// whole groups with at most a few other digits around them (a date, a "00" put in front); a longer
// structured number (a 22-digit tracking number in groups of four) is none. `full` when a CVV/CVC or
// an expiry date (MM/YY) stands within 40 characters after the number, or an expiry or CVV before it.
import { lineBefore, match, type Match } from "./detector.ts";

// A run of digit groups joined by one to three separator characters (spaces, tabs, dashes of any
// kind, dots, slashes, underscores, commas), not glued to letters, nor a phone number (+...).
const separator = "[ \\t._/,\\p{Pd}]{1,3}";
const run = new RegExp(`(?<![\\p{L}\\d+_\\\\]|[\\d+]${separator})\\d+(?:${separator}\\d+)*(?![\\p{L}\\d_])`, "gu");

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

export function maskCard(d: string): string {
  const middle = d.length - 8;
  const stars = "*".repeat(middle).replace(/(.{4})(?=.)/g, "$1 ");
  return `${d.slice(0, 4)} ${stars} ${d.slice(-4)}`;
}

const expiry = /(?<!\d)(0[1-9]|1[0-2]) ?[/-] ?(\d{2}|20\d{2})(?!\d)/;
// An expiry written before the number: MM/YY or MM/YYYY, not part of a longer date (12/01/2026).
const expiryBefore = /(?<![\d/.-])(0[1-9]|1[0-2]) ?[/-] ?(\d{2}|20\d{2})(?![\d/.])[^\d\n]{0,24}$/;
// Word edges by Unicode letters, not \b: \b only knows ASCII, so "код безопасности" never matched.
const cvv = /(?<![\p{L}\d_])(?:cvv2?|cvc2?|cid|csc|cav2|security code|card verification code|код безопасности|cvv-код|təhlükəsizlik kodu|güvenlik kodu|prüfnummer|kartenprüfnummer|sicherheitscode|cryptogramme(?: visuel)?|code de sécurité|código de seguridad|código de verificación)(?![\p{L}\d_])[^\p{L}\d_]{0,3}\d{3,4}(?!\d)/iu;

function isFull(text: string, start: number, end: number): boolean {
  const after = text.slice(end, end + 40);
  const before = text.slice(Math.max(0, start - 20), start);
  return expiry.test(after) || cvv.test(after) || cvv.test(text.slice(Math.max(0, start - 40), end + 40)) || expiryBefore.test(lineBefore(text, start, 40)) || /(?:exp\w*|valid\w*)\W{0,3}(0[1-9]|1[0-2]) ?\/ ?\d{2}\W*$/i.test(before);
}

// UnionPay does not require the Luhn digit on every card it issues (62, 16 to 19 digits): such a
// number counts when a card label stands before it on its line, as for the labelled types (Chinese
// has no spaces between words: 银联卡, 卡号 count wherever they stand).
const cardLabel = /(?<![\p{L}])(?:card|cards|kart|kartı|kartın|kredi kartı|карта|карты|карту|карточк\p{L}*|karte|kreditkarte|kartennummer|carte|tarjeta|unionpay|union pay|pan)(?![\p{L}])|银联|卡号|卡/iu;

/** Digits at most a run may hold around its card numbers (a date, a "00" put in front) before it is a longer number of its own. */
const LOOSE_DIGITS = 6;

interface Group {
  digits: string;
  start: number;
  end: number;
}

function accepted(digits: string, text: string, start: number): boolean {
  if (digits.length < 13 || digits.length > 19 || !schemeAccepts(digits) || /^(\d)\1+$/.test(digits)) return false;
  return luhn(digits) || (digits.startsWith("62") && cardLabel.test(lineBefore(text, start, 40)));
}

/** The card numbers of one run of digit groups: the whole run, else whole-group windows, longest first, with few digits left over. */
function cardsOfRun(text: string, groups: Group[]): Group[] {
  const all = groups.map((g) => g.digits).join("");
  if (all.length <= 19 && accepted(all, text, groups[0].start)) return [{ digits: all, start: groups[0].start, end: groups.at(-1)!.end }];
  if (groups.length === 1) return [];
  const found: Group[] = [];
  let loose = 0;
  for (let i = 0; i < groups.length; ) {
    let taken = 0;
    let digits = "";
    for (let j = i; j < groups.length && digits.length + groups[j].digits.length <= 19; j++) {
      digits += groups[j].digits;
      if (accepted(digits, text, groups[i].start)) taken = j - i + 1;
    }
    if (!taken) {
      loose += groups[i].digits.length;
      if (loose > LOOSE_DIGITS) return [];
      i++;
      continue;
    }
    found.push({ digits: groups.slice(i, i + taken).map((g) => g.digits).join(""), start: groups[i].start, end: groups[i + taken - 1].end });
    loose = 0;
    i += taken;
  }
  return found;
}

export function detectCards(text: string): Match[] {
  const out: Match[] = [];
  for (const m of text.matchAll(run)) {
    const raw = m[0];
    // Fewer than 13 characters cannot hold 13 digits: most numbers in a text end here.
    if (raw.length < 13) continue;
    const groups: Group[] = [];
    for (const g of raw.matchAll(/\d+/g)) groups.push({ digits: g[0], start: m.index + g.index, end: m.index + g.index + g[0].length });
    for (const c of cardsOfRun(text, groups)) out.push(match("card", c.digits, maskCard(c.digits), c.start, c.end, isFull(text, c.start, c.end)));
  }
  return out;
}
