// The coverage phase: deterministic cases at the edges of every constraint, the same on every run
// for a given seed. Boundaries that are valid go out as positive cases; with negative mode, one
// case per mutation goes out as well.
import fc from "fast-check";
import { caseField, caseIsValid, positiveCaseArb, type CaseOptions } from "./case-arbitrary.ts";
import { tooLongForALine } from "./line-limits.ts";
import { applyMutation, mutationsFor } from "./mutations.ts";
import { alternativesOf, formatRange, integerBounds } from "./schema-arbitrary.ts";
import { notOnThisSide } from "./schema-normalize.ts";
import { unicodeCase } from "./unicode-strings.ts";
import type { Case, JsonSchema, Mode, Operation } from "./types.ts";

function boundaryValues(schema: JsonSchema): unknown[] {
  if (typeof schema !== "object") return [];
  const s: any = schema;
  const out: unknown[] = [];
  if (Array.isArray(s.enum)) out.push(...s.enum);
  const type = Array.isArray(s.type) ? s.type : [s.type];
  if (type.includes("integer") || type.includes("number")) {
    const { min, max } = integerBounds(s);
    if (typeof s.minimum === "number" || typeof s.exclusiveMinimum === "number") out.push(type.includes("integer") ? min : s.minimum);
    if (typeof s.maximum === "number" || typeof s.exclusiveMaximum === "number") out.push(type.includes("integer") ? max : s.maximum);
    // The ends of a sized format where the schema sets no bound of its own (int32: +-2^31).
    const range = type.includes("integer") ? formatRange(s) : undefined;
    if (range && min === range.min) out.push(min);
    if (range && max === range.max) out.push(max);
  }
  if (type.includes("string")) {
    if (typeof s.minLength === "number") out.push("a".repeat(s.minLength));
    if (typeof s.maxLength === "number") out.push("a".repeat(s.maxLength));
  }
  if (type.includes("boolean")) out.push(true, false);
  if (type.includes("array") && typeof s.minItems === "number") out.push([]);
  return out;
}

/**
 * int64 values a double cannot hold exactly (2^53 + 1, the int64 maximum and minimum), written
 * as exact digits. The contract allows them, but a server may refuse them as unrepresentable
 * (I-JSON, docs/decisions.md E3a): they go out as "edge" cases, judged by every check except the
 * two data-acceptance ones (no 5xx, a documented status, a body that matches its schema).
 */
function int64Edges(schema: JsonSchema): { description: string; value: unknown }[] {
  const s: any = schema;
  if (typeof s !== "object" || s?.format !== "int64" || !(s.type === "integer" || (Array.isArray(s.type) && s.type.includes("integer")))) return [];
  const out: { description: string; value: string }[] = [];
  const noMax = typeof s.maximum !== "number" && typeof s.exclusiveMaximum !== "number";
  const noMin = typeof s.minimum !== "number" && typeof s.exclusiveMinimum !== "number";
  if (noMax) out.push({ description: "2^53 + 1 (not exact as a double)", value: "9007199254740993" }, { description: "the int64 maximum", value: "9223372036854775807" });
  if (noMin) out.push({ description: "the int64 minimum", value: "-9223372036854775808" });
  return out;
}

/** Exact digits: as text for a parameter, as a raw JSON number in a body. */
const rawInteger = (digits: string, inBody: boolean): unknown => (inBody ? (JSON as any).rawJSON(digits) : digits);

export function coverageCases(op: Operation, mode: Mode, seed: number, opts: CaseOptions = {}): Case[] {
  const [base] = fc.sample(positiveCaseArb(op, opts), { seed, numRuns: 1 });
  if (!base) return [];
  const out: Case[] = [];
  const keep = (c: Case) => {
    if (caseIsValid(op, c)) out.push({ ...c, mode: "positive" });
  };
  if (mode !== "negative") {
    out.push(base);
    for (const p of op.parameters) {
      const bag = caseField(p);
      if (opts.overrides && Object.hasOwn(opts.overrides, p.name)) continue;
      // A value longer than a request or header line holds never reaches the implementation (line-limits.ts).
      for (const v of boundaryValues(p.schema)) if (!tooLongForALine(v)) keep({ ...base, [bag]: { ...base[bag], [p.name]: v } });
    }
    // Every branch's properties: boundaries that do not fit the base case's branch are dropped by keep().
    const props: [string, any][] = op.body ? alternativesOf(op.body.schema).flatMap((b: any) => Object.entries<any>(b?.properties ?? {})) : [];
    if (base.hasBody && base.body && typeof base.body === "object" && !Array.isArray(base.body)) {
      const required: string[] = alternativesOf(op.body!.schema).flatMap((b: any) => b?.required ?? []);
      // The smallest body the contract allows: servers often trip on absent optional fields.
      keep({ ...base, body: Object.fromEntries(Object.entries(base.body).filter(([k]) => required.includes(k))) });
      for (const [name, prop] of props) {
        if ((opts.overrides && Object.hasOwn(opts.overrides, name)) || notOnThisSide(prop)) continue;
        for (const v of boundaryValues(prop)) keep({ ...base, body: { ...(base.body as object), [name]: v } });
      }
    }
    for (const p of op.parameters) {
      if (opts.overrides && Object.hasOwn(opts.overrides, p.name)) continue;
      const bag = caseField(p);
      for (const e of int64Edges(p.schema)) out.push({ ...base, [bag]: { ...base[bag], [p.name]: rawInteger(String(e.value), false) }, mode: "edge", mutation: `${p.in} parameter ${p.name}: ${e.description}` });
    }
    // Every free string non-ASCII (a positive case), then carrying NUL (an edge case).
    for (const nul of [false, true]) {
      const u = unicodeCase(op, base, nul, opts.overrides);
      if (u) out.push(u);
    }
    if (base.hasBody && base.body && typeof base.body === "object" && !Array.isArray(base.body)) {
      for (const [name, prop] of props) {
        if (opts.overrides && Object.hasOwn(opts.overrides, name)) continue;
        for (const e of int64Edges(prop)) out.push({ ...base, body: { ...(base.body as object), [name]: rawInteger(String(e.value), true) }, mode: "edge", mutation: `body property ${name}: ${e.description}` });
      }
    }
  }
  if (mode !== "positive") {
    for (const m of mutationsFor(op)) {
      const neg = applyMutation(op, base, m);
      if (neg) out.push(neg);
    }
  }
  return out;
}
