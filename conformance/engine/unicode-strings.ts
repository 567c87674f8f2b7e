// Non-ASCII text in every string the client controls. Free strings are drawn from printable ASCII
// and, one code point in five, from multi-byte, astral, combining and right-to-left characters;
// the coverage phase also sends, per operation, one case whose every string the schema leaves free
// is non-ASCII (positive: a 400 or 500 to it is a failure) and one whose strings carry NUL (an
// "edge" case: a server may refuse U+0000, never crash on it). Issue 39 item 8: the suite never
// sent a non-ASCII character, so a server answering 500 to any passed every check.
import { caseIsValid } from "./case-arbitrary.ts";
import { discriminatorHint } from "./schema-normalize.ts";
import type { Case, Operation } from "./types.ts";

/** Starts non-ASCII so that a one-character field is non-ASCII too; the combining mark follows a letter. */
const SAMPLE = [..."ë中😀é\u0301שלוםمرحبا\u202E𝄞 Zoë 文"];

/** The same number of code points, non-ASCII; NUL first when asked. */
function unicodeLike(s: string, nul: boolean): string {
  const n = [...s].length;
  if (!n) return s;
  const out = Array.from({ length: n }, (_v, i) => SAMPLE[i % SAMPLE.length]);
  if (nul) out[0] = "\u0000";
  return out.join("");
}

type Bag = "body" | "query" | "pathParams";

/**
 * The case with its string leaves made non-ASCII (body, query and path; headers and cookies carry
 * bytes only), each kept only where the schema still accepts it; undefined when none could be.
 */
export function unicodeCase(op: Operation, base: Case, nul: boolean, overrides: Record<string, unknown> = {}): Case | undefined {
  const bags: Bag[] = nul ? ["body", "query"] : ["body", "query", "pathParams"];
  const leaves: { bag: Bag; path: (string | number)[] }[] = [];
  // A fixture value names something the server must recognise, and a discriminator's value names
  // the branch servers dispatch on (decision CL11): the schema allows other text there, the
  // server rightly does not.
  const pinned = pinnedNames(op);
  const free = (p: (string | number)[]) => !p.some((k) => typeof k === "string" && (Object.hasOwn(overrides, k) || pinned.has(k)));
  for (const bag of bags) collect(bag === "body" ? base.body : base[bag], [], (p) => free(p) && leaves.push({ bag, path: p }));
  if (!leaves.length) return undefined;
  const mark = nul ? "strings carry NUL (U+0000)" : "non-ASCII strings (multi-byte, astral, combining, right-to-left)";
  const at = (c: Case, leaf: (typeof leaves)[number]) => replace(c, leaf.bag, leaf.path, (s) => unicodeLike(s, nul));
  // All at once first; where a pattern or format refuses that, leaf by leaf.
  let c: Case = leaves.reduce(at, base);
  if (!caseIsValid(op, c)) {
    c = base;
    for (const leaf of leaves) {
      const next = at(c, leaf);
      if (caseIsValid(op, next)) c = next;
    }
  }
  if (c === base) return undefined;
  return { ...c, mode: nul ? "edge" : "positive", mutation: mark };
}

const pinnedByOp = new WeakMap<Operation, Set<string>>();

/** Discriminator property names anywhere in the body schema. */
function pinnedNames(op: Operation): Set<string> {
  let names = pinnedByOp.get(op);
  if (names) return names;
  pinnedByOp.set(op, (names = new Set()));
  const seen = new Set<object>();
  const walk = (s: unknown) => {
    if (!s || typeof s !== "object" || seen.has(s) || seen.size > 5000) return;
    seen.add(s);
    const hint = discriminatorHint(s);
    if (hint) names.add(hint.property);
    for (const v of Object.values(s)) walk(v);
  };
  walk(op.body?.schema);
  return names;
}

function collect(v: unknown, path: (string | number)[], out: (p: (string | number)[]) => void): void {
  if (typeof v === "string") {
    if (v.length) out(path);
  } else if (Array.isArray(v)) v.forEach((x, i) => collect(x, [...path, i], out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) collect(x, [...path, k], out);
}

function replace(c: Case, bag: Bag, path: (string | number)[], f: (s: string) => string): Case {
  const set = (v: unknown, i: number): unknown => {
    if (i === path.length) return typeof v === "string" ? f(v) : v;
    const k = path[i];
    if (Array.isArray(v)) return v.map((x, j) => (j === k ? set(x, i + 1) : x));
    if (v && typeof v === "object") return copyWith(v as Record<string, unknown>, String(k), set((v as Record<string, unknown>)[k as string], i + 1));
    return v;
  };
  return bag === "body" ? { ...c, body: set(c.body, 0) } : { ...c, [bag]: set(c[bag], 0) };
}

/** A copy with one key changed, own properties such as `__proto__` kept as own properties. */
function copyWith(o: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) Object.defineProperty(out, k, { value: k === key ? value : o[k], enumerable: true, writable: true, configurable: true });
  return out;
}
