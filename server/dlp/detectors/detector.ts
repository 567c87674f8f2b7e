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
  if (last) return !/\d/.test(context.slice(last.index + last[0].length).replace(globalOf(shape), ""));
  // A "key: value" line whose key starts with the label (a table's cell: its row label, then its
  // column header, then the value; a form's long field name): the label counts however long the
  // key is, so a header between the row label and the value does not push the label out of reach.
  // Only at the key's start: "Reference of the passport office ...: 123456789" is prose.
  const line = lineBefore(text, index, KEY_MAX);
  if (line.length >= KEY_MAX || !/^[^:\n]+:\s*$/.test(line)) return false;
  const start = anchoredOf(label).exec(line);
  return start !== null && !/\d/.test(line.slice(start[0].length).replace(globalOf(shape), ""));
}

/** The longest key of a "key: value" line read as the value's label. */
const KEY_MAX = 160;

const anchored = new WeakMap<RegExp, RegExp>();
function anchoredOf(re: RegExp): RegExp {
  let a = anchored.get(re);
  if (!a) anchored.set(re, (a = new RegExp(`^[\\s"'«(\\[|*-]*(?:${re.source})`, re.flags.replace(/[gy]/g, ""))));
  return a;
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
