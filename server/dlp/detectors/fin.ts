// fin: the Azerbaijani personal identification code (FİN, "Personal No." on new ID cards and
// passports): 7 characters of capital Latin letters and digits, never the letter O, at least one
// digit. Seven-character codes are everywhere (product codes, flight numbers), so the value
// counts only after a label within 30 characters before it, on its line or the line above:
// FİN/FIN (kod, kodu, code), PIN, "personal no", "fərdi identifikasiya nömrəsi", ФИН, ПИН.
import { labelled, match, mentions, type Match } from "./detector.ts";

const candidate = /(?<![\p{L}\d_-])(?=[A-NP-Z0-9]*\d)[A-NP-Z0-9]{7}(?![\p{L}\d_-])/gu;
const label = /(?:(?<![\p{L}])(?:F[İI]N|f[iı]n|P[İI]N|ФИН|ПИН)(?![\p{L}])|personal\s+(?:no|number|identification)|fərdi\s+identifikasiya|şəxsi\s+identifikasiya|персональный\s+(?:идентификационный\s+)?номер|kişisel\s+kimlik|persönliche\s+identifikationsnummer|numéro\s+(?:personnel|d'identification\s+personnel)|número\s+(?:personal|de\s+identificación\s+personal))/iu;

export const maskMiddle = (v: string, keep = 1) => `${v.slice(0, keep)}${"*".repeat(Math.max(0, v.length - 2 * keep))}${v.slice(-keep)}`;

export function detectFin(text: string): Match[] {
  const out: Match[] = [];
  if (!mentions(text, label)) return out;
  for (const m of text.matchAll(candidate)) {
    if (!/[A-Z]/.test(m[0])) continue;
    if (!labelled(text, m.index, 30, label, candidate)) continue;
    out.push(match("fin", m[0], maskMiddle(m[0]), m.index, m.index + 7));
  }
  return out;
}
