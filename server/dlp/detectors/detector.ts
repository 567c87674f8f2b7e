// What every detector returns: a match in one text, with the value normalized so repeats of the
// same value (formatted differently) count as one finding, and a masked form safe to log.
import type { DlpType } from "../dlp-port.ts";

export interface Match {
  type: DlpType;
  /** Normalized value: the key repeats are counted under. Never leaves the scanner. */
  value: string;
  masked: string;
  /** card: a CVV or an expiry date stands next to it. */
  full: boolean;
  start: number;
  end: number;
}

export type Detector = (text: string) => Match[];

/** Characters around a match, on the same line, for context words. */
export function lineBefore(text: string, index: number, max: number): string {
  const from = Math.max(0, index - max);
  const slice = text.slice(from, index);
  const nl = slice.lastIndexOf("\n");
  return nl === -1 ? slice : slice.slice(nl + 1);
}

/**
 * Context before a value: the same line, or the line above when the value stands alone on its
 * line (a label above its value in forms and table cells extracted one per line).
 */
export function labelBefore(text: string, index: number, max: number): string {
  const same = lineBefore(text, index, max);
  // A quote or bracket opening a cell is not content: the label may be on the line above.
  if (same.replace(/[\s"'«»(\[{|,;:]/g, "") !== "") return same;
  const lineStart = index - same.length;
  if (lineStart <= 0) return same;
  return lineBefore(text, lineStart - 1, max);
}

export function match(type: DlpType, value: string, masked: string, start: number, end: number, full = false): Match {
  return { type, value, masked, full, start, end };
}

/**
 * True when a label stands before the value at `index` (within `max` characters, on its line or
 * the line above) and nothing but separators, words and other values of the same shape lie between
 * them: "Passport: C01234567" and "VÖEN: 1401555071, 1400057421" count; a phone number
 * twenty characters after "passport ... issued 2019" does not.
 */
export function labelled(text: string, index: number, max: number, label: RegExp, shape: RegExp): boolean {
  const context = labelBefore(text, index, max);
  let last: RegExpExecArray | undefined;
  for (const m of context.matchAll(globalOf(label))) last = m;
  if (!last) return false;
  const gap = context.slice(last.index + last[0].length);
  return !/\d/.test(gap.replace(globalOf(shape), ""));
}

// Labelled detectors ask for every candidate: the global copies are made once per pattern.
const globals = new WeakMap<RegExp, RegExp>();
function globalOf(re: RegExp): RegExp {
  let g = globals.get(re);
  if (!g) globals.set(re, (g = new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g")));
  return g;
}

/** A text without any of its labels has no labelled value: its candidates need not be looked at. */
export function mentions(text: string, label: RegExp): boolean {
  return label.global || label.sticky ? new RegExp(label.source, label.flags.replace(/[gy]/g, "")).test(text) : label.test(text);
}
