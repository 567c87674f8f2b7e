// Text as a reader reads it, before any detector sees it. What renders the same must match the
// same: a card number with zero-width spaces or soft hyphens between its digits, NBSP as its
// separator, full-width or Arabic-Indic digits is the same number to the recipient. So:
//  - Unicode NFKC (full-width letters and digits, ligatures, NBSP and other compatibility spaces),
//  - format characters removed (\p{Cf}: U+200B..U+200F, U+2060..U+2064, U+FEFF, soft hyphen U+00AD,
//    bidirectional controls): they are invisible,
//  - every Unicode decimal digit (\p{Nd}) read as its ASCII value,
//  - every space separator (\p{Zs}) as a space, line and paragraph separators as a line break.
// Positions change, so detectors report on the normalized text; findings carry the place
// (`where`) and a masked value, never an offset, so nothing is lost.

const plain = /^[\x00-\x7f]*$/;
// Outside ASCII only: ASCII digits and the space are already what they should be.
const unusual = /(?=[^\x00-\x7f])[\p{Cf}\p{Nd}\p{Zs}\u2028\u2029]/gu;
const cache = new Map<string, string>();

/** The value 0-9 of a decimal digit: Unicode encodes each script's digits as a run of ten, 0 first (a stability policy). */
function digitValue(c: string): string {
  const cp = c.codePointAt(0)!;
  let start = cp;
  // Runs of ten may sit side by side (mathematical digits): the value is the offset modulo ten
  // from the first digit of the whole stretch.
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return String((cp - start) % 10);
}

function replace(c: string): string {
  let r = cache.get(c);
  if (r === undefined) {
    if (/\p{Cf}/u.test(c)) r = "";
    else if (/\p{Nd}/u.test(c)) r = digitValue(c);
    else if (c === "\u2028" || c === "\u2029") r = "\n";
    else r = " ";
    cache.set(c, r);
  }
  return r;
}

export function normalizeText(text: string): string {
  // Most text is ASCII: nothing to do, and no copy made.
  if (plain.test(text)) return text;
  return text.normalize("NFKC").replace(unusual, replace);
}
