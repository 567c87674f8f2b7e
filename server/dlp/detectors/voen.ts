// voen: the Azerbaijani taxpayer number (VÖEN): 10 digits, together or grouped (3-3-4 or any), the last
// digit 1 (legal person) or 2 (natural person). Ten digits are also phone numbers and order
// numbers, so the value counts only after a label within 40 characters before it, on its line or
// the line above: VÖEN/VOEN, ВОЕН, TIN, ИНН, "tax id", "taxpayer identification", "vergi
// ödəyicisinin eyniləşdirmə nömrəsi", "tax number".
import { labelled, match, mentions, type Match } from "./detector.ts";
import { maskMiddle } from "./fin.ts";

// Grouped as the sender likes (3-3-4 is usual, any single space, dot or dash between digits counts: issue 40).
const candidate = /(?<![\p{L}\d+_-]|\d[ .-])(\d(?:[ .-]?\d){8}[ .-]?[12])(?![\p{L}\d_]|[ .-]\d)/gu;
// Seven languages (docs/decisions.md DLP13): VÖEN, ИНН, TIN/tax id, VKN/vergi kimlik numarası (tr),
// Steuernummer/Steuer-ID (de), numéro fiscal (fr), NIF/identificación fiscal (es).
const label = /(?:(?<![\p{L}])(?:V[ÖO]EN|VÖEN|ВОЕН|TIN|ИНН|VKN|NIF|CIF)(?![\p{L}])|tax\s*(?:payer\s*)?(?:id|identification|number|no)|taxpayer|vergi\s+ödəyicisi|vergi\s+(?:kimlik|no|numarası|nömrəsi)|eyniləşdirmə\s+nömrəsi|налогоплательщик|steuer(?:nummer|-?id|-?nr|identifikationsnummer)|(?:numéro|n°)\s+(?:d'identification\s+)?fiscal|identifi(?:cación|cation)\s+fiscal)/iu;

export function detectVoen(text: string): Match[] {
  const out: Match[] = [];
  if (!mentions(text, label)) return out;
  for (const m of text.matchAll(candidate)) {
    const raw = m[1];
    if (!labelled(text, m.index, 60, label, candidate)) continue;
    const digits = raw.replace(/[ .-]/g, "");
    out.push(match("voen", digits, maskMiddle(digits, 2), m.index, m.index + raw.length));
  }
  return out;
}
