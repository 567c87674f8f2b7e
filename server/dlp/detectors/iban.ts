// iban: ISO 13616. Two letters of a country that issues IBANs, two check digits, then the BBAN,
// written together or in groups with separators of the sender's choosing (one or two spaces,
// dashes, dots, slashes: issue 40, the separator never decides); the length must be that country's exact
// length, the BBAN must fit the country's structure and the whole must pass mod-97 (ibantools).
// A candidate may run into the next word ("... 7654 32 BANK"), so each country's exact length is
// cut from its start, at a group boundary.
import { getCountrySpecifications, isValidIBAN } from "ibantools";
import { match, type Match } from "./detector.ts";

const specs = getCountrySpecifications();
const candidate = /(?<![\p{L}\d])([A-Za-z]{2})[ .\/-]{0,2}(\d{2})((?:[ .\/\-\p{Pd}]{0,2}[A-Za-z0-9]){8,32})/gu;
const sep = /[ .\/\-\p{Pd}]/u;

export function maskIban(iban: string): string {
  return `${iban.slice(0, 4)} **** ${iban.slice(-4)}`;
}

export function detectIbans(text: string): Match[] {
  const out: Match[] = [];
  const re = new RegExp(candidate);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // On a miss the next IBAN may start inside this candidate's tail: retry one character on.
    re.lastIndex = m.index + 1;
    const country = m[1].toUpperCase();
    const length = specs[country]?.chars;
    if (!length) continue;
    // Walk the raw text until `length` alphanumerics were taken.
    const raw = m[0];
    let taken = 0;
    let i = 0;
    for (; i < raw.length && taken < length; i++) if (!sep.test(raw[i])) taken++;
    if (taken < length) continue;
    const next = raw[i];
    const after = text[m.index + i];
    if (next !== undefined && !sep.test(next)) continue;
    if (next === undefined && after !== undefined && /[\p{L}\d]/u.test(after)) continue;
    const iban = raw.slice(0, i).replace(/[^A-Za-z0-9]/g, "").toUpperCase();
    if (!isValidIBAN(iban)) continue;
    out.push(match("iban", iban, maskIban(iban), m.index, m.index + i));
    re.lastIndex = m.index + i;
  }
  return out;
}
