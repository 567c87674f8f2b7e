// The coverage phase: deterministic cases at the edges of every constraint, the same on every run
// for a given seed. Boundaries that are valid go out as positive cases; with negative mode, one
// case per mutation goes out as well.
import fc from "fast-check";
import { caseField, caseIsValid, positiveCaseArb, type CaseOptions } from "./case-arbitrary.ts";
import { applyMutation, mutationsFor } from "./mutations.ts";
import { alternativesOf, integerBounds } from "./schema-arbitrary.ts";
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
  }
  if (type.includes("string")) {
    if (typeof s.minLength === "number") out.push("a".repeat(s.minLength));
    if (typeof s.maxLength === "number") out.push("a".repeat(s.maxLength));
  }
  if (type.includes("boolean")) out.push(true, false);
  if (type.includes("array") && typeof s.minItems === "number") out.push([]);
  return out;
}

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
      for (const v of boundaryValues(p.schema)) keep({ ...base, [bag]: { ...base[bag], [p.name]: v } });
    }
    // Every branch's properties: boundaries that do not fit the base case's branch are dropped by keep().
    const props: [string, any][] = op.body ? alternativesOf(op.body.schema).flatMap((b: any) => Object.entries<any>(b?.properties ?? {})) : [];
    if (base.hasBody && base.body && typeof base.body === "object" && !Array.isArray(base.body)) {
      const required: string[] = alternativesOf(op.body!.schema).flatMap((b: any) => b?.required ?? []);
      // The smallest body the contract allows: servers often trip on absent optional fields.
      keep({ ...base, body: Object.fromEntries(Object.entries(base.body).filter(([k]) => required.includes(k))) });
      for (const [name, prop] of props) {
        if (opts.overrides && Object.hasOwn(opts.overrides, name)) continue;
        for (const v of boundaryValues(prop)) keep({ ...base, body: { ...(base.body as object), [name]: v } });
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
