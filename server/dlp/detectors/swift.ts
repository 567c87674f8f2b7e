// swift: a BIC (ISO 9362): 4 letters (bank), 2 letters of a real country (ibantools), 2
// letters/digits (location), optionally 3 letters/digits (branch). Shaped like many capitalised
// words (BUSINESS = BUSI NE SS), so a token only counts with context: a label (SWIFT, BIC,
// SWIFT/BIC, "bank identifier code", SVİFT, СВИФТ, БИК SWIFT...) within 30 characters before it on
// its line or on the line above, or a valid IBAN on the same line (bank details written together).
import { isValidBIC } from "ibantools";
import { labelled, match, type Match } from "./detector.ts";
import { detectIbans } from "./iban.ts";

const candidate = /(?<![\p{L}\d_-])([A-Z]{4})([A-Z]{2})([A-Z0-9]{2})([A-Z0-9]{3})?(?![\p{L}\d_-])/gu;
// БИК by Unicode letter edges: \b only knows ASCII, so "\bБИК\b" never matched.
const label = /(?:\bswift|\bbic\b|\bbic[/:]|s\.w\.i\.f\.t|bank identifier code|\bsvift|\bsvİft|свифт|(?<!\p{L})БИК(?!\p{L}))/iu;

function lineOf(text: string, index: number): string {
  const start = text.lastIndexOf("\n", index) + 1;
  const end = text.indexOf("\n", index);
  return text.slice(start, end === -1 ? undefined : end);
}

export function detectSwift(text: string): Match[] {
  const out: Match[] = [];
  for (const m of text.matchAll(candidate)) {
    const bic = m[0];
    if (!isValidBIC(bic)) continue;
    const line = lineOf(text, m.index);
    if (!labelled(text, m.index, 30, label, candidate) && !(detectIbans(line).length > 0)) continue;
    out.push(match("swift", bic, `${bic.slice(0, 6)}${"*".repeat(bic.length - 6)}`, m.index, m.index + bic.length));
  }
  return out;
}
