// passport: national passport numbers. Formats differ by country, so the value counts only after a
// label within 40 characters before it (its line or the line above): passport, pasport, паспорт,
// "travel document", "passport no"; the value is 6 to 10 capital letters and digits with at least
// 5 digits and at most 4 letters (AA1234567, C01234567, 123456789, C01X00T47), or the Russian
// series-and-number forms (45 10 123456, 45 10 номер 123456, 72 1234567). Without a label: the document number of a
// machine-readable passport line (ICAO 9303 TD3 line 2), whose check digit must hold.
import { labelled, match, mentions, type Match } from "./detector.ts";
import { maskMiddle } from "./fin.ts";

const candidate = /(?<![\p{L}\d_+-]|[+\d][ -])(\d{2} ?\d{2} (?:номер|№|N|nömrə) ?\d{6}|\d{2} ?\d{2} ?\d{6}|\d{2} \d{7}|[A-Z0-9]{6,10})(?![\p{L}\d_]|[ -]\d)/gu;
// Seven languages (docs/decisions.md DLP13): passport, pasport (az), паспорт, pasaport (tr), Reisepass,
// Pass-Nr./Passnummer (de), passeport (fr), pasaporte (es).
const label = /(?:pass?port|pasport|паспорт|pasaport|travel\s+document|passeport|reisepass|(?<!\p{L})pass(?:nummer|-?nr\.?|-?no\.?)(?!\p{L}))/iu;
const mrz = /(?<![A-Z0-9<])([A-Z0-9<]{9})(\d)([A-Z<]{3})(\d{6})(\d)([MFX<])(\d{6})(\d)([A-Z0-9<]{14})([\d<])(\d)(?![A-Z0-9<])/g;

export function mrzCheck(field: string): number {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    const v = c === "<" ? 0 : /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 55;
    sum += v * weights[i % 3];
  }
  return sum % 10;
}

export function detectPassports(text: string): Match[] {
  const out: Match[] = [];
  for (const m of text.matchAll(mrz)) {
    if (mrzCheck(m[1]) !== Number(m[2]) || mrzCheck(m[4]) !== Number(m[5])) continue;
    const number = m[1].replace(/</g, "");
    out.push(match("passport", number, maskMiddle(number, 2), m.index, m.index + m[0].length));
  }
  if (!mentions(text, label)) return out;
  for (const m of text.matchAll(candidate)) {
    const raw = m[1];
    const value = raw.replace(/[^0-9A-Z]/g, "");
    const digits = value.replace(/\D/g, "").length;
    const letters = value.length - digits;
    if (digits < 5 || letters > 4) continue;
    if (out.some((o) => o.start <= m.index && m.index < o.end)) continue;
    if (!labelled(text, m.index, 40, label, candidate)) continue;
    out.push(match("passport", value, maskMiddle(value, 2), m.index, m.index + raw.length));
  }
  return out;
}
