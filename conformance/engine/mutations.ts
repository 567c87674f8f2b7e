// Negative cases: a valid case with exactly one constraint broken. Each mutation names what it
// broke, and the result is re-validated, so a "negative" case is known to be invalid.
import fc from "fast-check";
import { caseField, caseIsValid, operationPointer, positiveCaseArb, type CaseOptions } from "./case-arbitrary.ts";
import { budgetedFilter } from "./generation-budget.ts";
import { tooLongForALine } from "./line-limits.ts";
import { alternativesOf, integerBounds } from "./schema-arbitrary.ts";
import { notOnThisSide } from "./schema-normalize.ts";
import type { Case, JsonSchema, Operation, Parameter } from "./types.ts";

export interface Mutation {
  description: string;
  apply(c: Case): Case | null;
}

interface Candidate {
  description: string;
  value: unknown;
}

const REMOVE = Symbol("remove");

/** Values that break one keyword of the schema. Which of them really are invalid is decided later. */
export function invalidCandidates(schema: JsonSchema, asParam: boolean): Candidate[] {
  if (typeof schema !== "object") return [];
  const s: any = schema;
  const out: Candidate[] = [];
  const type = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (s.enum) out.push({ description: "value outside the enum", value: "__not_in_enum__" });
  if (type.includes("integer") || type.includes("number")) {
    out.push({ description: `not a ${type[0]}`, value: "not-a-number" });
    if (type.includes("integer") && !type.includes("number")) out.push({ description: "fraction for an integer", value: 1.5 });
    const { min, max } = integerBounds(s);
    if (typeof s.minimum === "number" || typeof s.exclusiveMinimum === "number") out.push({ description: `below minimum ${min}`, value: type.includes("integer") ? min - 1 : (s.minimum ?? s.exclusiveMinimum) - 1 });
    if (typeof s.maximum === "number" || typeof s.exclusiveMaximum === "number") out.push({ description: `above maximum ${max}`, value: type.includes("integer") ? max + 1 : (s.maximum ?? s.exclusiveMaximum) + 1 });
    // One past each end of a sized format, and numbers no store holds: what a server that treats
    // the format as an annotation hands to its database (SQLite: "datatype mismatch", a 500).
    // Which of them break the schema is decided by re-validation.
    if (s.format === "int32") out.push({ description: "above the int32 maximum", value: 2 ** 31 }, { description: "below the int32 minimum", value: -(2 ** 31) - 1 });
    if (s.format === "int64") out.push({ description: "above the int64 maximum", value: 2 ** 64 }, { description: "below the int64 minimum", value: -(2 ** 64) });
    out.push({ description: "a very large number", value: 1e20 }, { description: "a very large negative number", value: -1e20 });
  }
  if (type.includes("boolean")) out.push({ description: "not a boolean", value: "maybe" });
  if (type.includes("string")) {
    if (typeof s.maxLength === "number") out.push({ description: `longer than maxLength ${s.maxLength}`, value: "a".repeat(s.maxLength + 1) });
    if (typeof s.minLength === "number" && s.minLength > 0) out.push({ description: `shorter than minLength ${s.minLength}`, value: "a".repeat(s.minLength - 1) });
    if (s.pattern) for (const v of ["", "!", " x ", "A".repeat(3)]) out.push({ description: `does not match pattern ${s.pattern}`, value: v });
    if (s.format) out.push({ description: `not a valid ${s.format}`, value: `not a ${s.format}` });
    if (!asParam) out.push({ description: "number instead of string", value: 12345 });
  }
  if (type.includes("array")) {
    if (!asParam) out.push({ description: "string instead of array", value: "not-an-array" });
    if (typeof s.maxItems === "number") out.push({ description: `more than maxItems ${s.maxItems}`, value: Array(s.maxItems + 1).fill(sampleItem(s.items)) });
    if (typeof s.minItems === "number" && s.minItems > 0) out.push({ description: `fewer than minItems ${s.minItems}`, value: [] });
  }
  if (type.includes("object") || (!type.length && s.properties)) {
    if (!asParam) out.push({ description: "string instead of object", value: "not-an-object" });
  }
  if (!asParam && type.length && !type.includes("null")) out.push({ description: "null where a value is required", value: null });
  return out;
}

function sampleItem(items: JsonSchema | undefined): unknown {
  const t = typeof items === "object" ? (items as any).type : undefined;
  return (items as any)?.enum?.[0] ?? (t === "integer" || t === "number" ? 1 : t === "boolean" ? true : t === "object" ? {} : "x");
}

function paramMutations(p: Parameter): Mutation[] {
  const field = caseField(p);
  const out: Mutation[] = [];
  if (p.required && p.in !== "path") {
    out.push({
      description: `required ${p.in} parameter ${p.name} missing`,
      apply: (c) => {
        const bag = { ...c[field] };
        delete bag[p.name];
        return { ...c, [field]: bag, omitHeaders: p.in === "header" ? [p.name] : c.omitHeaders };
      },
    });
  }
  // An empty path segment reaches another route (or none), not this operation with a bad value.
  // Nor does a value longer than a request or header line holds (line-limits.ts).
  for (const cand of invalidCandidates(p.schema, true).filter((c) => !tooLongForALine(c.value) && (p.in !== "path" || (c.value !== "" && !/^\s|\s$/.test(String(c.value)))))) {
    out.push({ description: `${p.in} parameter ${p.name}: ${cand.description}`, apply: (c) => ({ ...c, [field]: { ...c[field], [p.name]: cand.value } }) });
  }
  return out;
}

function setAt(body: unknown, path: string[], value: unknown | typeof REMOVE): unknown | null {
  if (path.length === 0) return value === REMOVE ? null : value;
  const root = structuredClone(body);
  let node: any = root;
  for (const key of path.slice(0, -1)) {
    if (!node || typeof node !== "object" || !(key in node)) return null;
    node = node[key];
  }
  if (!node || typeof node !== "object" || Array.isArray(node)) return null;
  const last = path[path.length - 1];
  if (value === REMOVE) {
    if (!(last in node)) return null;
    delete node[last];
  } else node[last] = value;
  return root;
}

function bodyMutations(schema: JsonSchema, path: string[], depth: number): Mutation[] {
  if (typeof schema !== "object" || depth > 3) return [];
  const alternatives = alternativesOf(schema);
  if (alternatives.length > 1) {
    // Each branch's constraints, once each: branches often share fields (a name, a ttl).
    const seen = new Set<string>();
    return alternatives.flatMap((b) => bodyMutations(b, path, depth)).filter((m) => !seen.has(m.description) && seen.add(m.description));
  }
  const s: any = schema;
  const where = path.length ? `body /${path.join("/")}` : "body";
  const out: Mutation[] = [];
  const mutate = (description: string, value: unknown | typeof REMOVE): Mutation => ({
    description: `${where}: ${description}`,
    apply: (c) => {
      if (!c.hasBody) return null;
      const body = setAt(c.body, path, value);
      return body === null && value !== null ? null : { ...c, body };
    },
  });
  for (const cand of invalidCandidates(s, false)) out.push(mutate(cand.description, cand.value));
  for (const name of s.required ?? []) {
    out.push({
      description: `${where}: required property ${name} missing`,
      apply: (c) => {
        if (!c.hasBody) return null;
        const body = setAt(c.body, [...path, name], REMOVE);
        return body === null ? null : { ...c, body };
      },
    });
  }
  if (s.additionalProperties === false || s.unevaluatedProperties === false) {
    out.push({
      description: `${where}: undeclared property`,
      apply: (c) => {
        const body = setAt(c.body, [...path, "unexpectedProperty__"], "x");
        return body === null ? null : { ...c, body };
      },
    });
  }
  // A readOnly property a client sends anyway may be ignored by a correct server: not a negative case.
  for (const [name, prop] of Object.entries<any>(s.properties ?? {})) if (!notOnThisSide(prop)) out.push(...bodyMutations(prop, [...path, name], depth + 1));
  return out;
}

export function mutationsFor(op: Operation): Mutation[] {
  const out = op.parameters.flatMap(paramMutations);
  if (op.body) {
    if (op.body.required) out.push({ description: "required request body missing", apply: (c) => ({ ...c, hasBody: false, body: undefined }) });
    out.push(...bodyMutations(op.body.schema, [], 0));
  }
  return out;
}

/** Applies a mutation and keeps the result only if it really is invalid. */
export function applyMutation(op: Operation, c: Case, m: Mutation): Case | null {
  const next = m.apply(c);
  if (!next || caseIsValid(op, next)) return null;
  return { ...next, mode: "negative", mutation: m.description };
}

export function negativeCaseArb(op: Operation, opts: CaseOptions = {}): fc.Arbitrary<Case> | undefined {
  const positive = positiveCaseArb(op, opts);
  // Keep only mutations that really invalidate a typical case, so the filter below rarely skips.
  const samples = fc.sample(positive, { seed: 7, numRuns: 3 });
  const mutations = mutationsFor(op).filter((m) => samples.some((c) => applyMutation(op, c, m) !== null));
  if (!mutations.length) return undefined;
  return budgetedFilter(
    fc.tuple(positive, fc.constantFrom(...mutations)).map(([c, m]) => applyMutation(op, c, m)),
    (c): c is Case => c !== null,
    `${operationPointer(op)} (negative cases)`,
  ) as fc.Arbitrary<Case>;
}
