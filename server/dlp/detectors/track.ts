// track: magnetic stripe data (ISO/IEC 7813). Track 1: `%B` + PAN + `^` + name + `^` + YYMM +
// service code...; track 2: `;` + PAN + `=` + YYMM + service code...; sentinels optional (the
// `%`/`;` start and `?` end are often lost in logs). The PAN must be Luhn-valid and the expiry a
// real YYMM, so an `=`-joined pair of numbers in a query string does not match. A track holds a
// card number; it is reported once, as `track` (the card detector skips it).
import { luhn, maskCard } from "./card.ts";
import { match, type Match } from "./detector.ts";

// OCR reads the caret as "~ or ~; those are accepted in its place.
const track1 = /%?B(\d{13,19})(?:\^|"?~)([A-Za-z0-9 /.'-]{2,26})(?:\^|"?~)(\d{2})(\d{2})(\d{3})[^?\s]*\??/g;
const track2 = /(?<!\d)(?:;|%B?|\b)(\d{13,19})[=D](\d{2})(\d{2})(\d{3})\d*\??/g;

const validMonth = (mm: string) => Number(mm) >= 1 && Number(mm) <= 12;

export function detectTracks(text: string): Match[] {
  const out: Match[] = [];
  for (const m of text.matchAll(track1)) {
    if (!luhn(m[1]) || !validMonth(m[4])) continue;
    out.push(match("track", `1:${m[1]}`, `track1 ${maskCard(m[1])}`, m.index, m.index + m[0].length, true));
  }
  for (const m of text.matchAll(track2)) {
    if (!luhn(m[1]) || !validMonth(m[3])) continue;
    if (out.some((t) => t.start <= m.index && m.index < t.end)) continue;
    out.push(match("track", `2:${m[1]}`, `track2 ${maskCard(m[1])}`, m.index, m.index + m[0].length, true));
  }
  return out;
}
