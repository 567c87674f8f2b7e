// JSON Schema -> fast-check arbitrary for *valid* values. It aims at validity but does not have to
// be perfect: callers re-validate and filter, so exotic combinations (oneOf exclusivity, patterns
// combined with lengths) cost retries, never false failures.
import fc from "fast-check";
import { budgetedFilter, GenerationBudgetExceeded, pointerToken } from "./generation-budget.ts";
import { hostileFormat } from "./hostile-formats.ts";
import { boundPattern } from "./pattern-bounds.ts";
import { textUnit } from "./text-units.ts";
import { validate } from "./validator.ts";
import { discriminatorHint, fixesProperty } from "./schema-normalize.ts";
import type { JsonSchema } from "./types.ts";

export interface ArbitraryOptions {
  /** values chosen by the config for a property or parameter name (fixtures) */
  overrides?: Record<string, unknown>;
  /** header values must be plain tokens */
  token?: boolean;
  /** where the schema sits in the contract, for warnings when a value cannot be generated */
  pointer?: string;
}

const at = (opts: ArbitraryOptions, ...tokens: (string | number)[]): ArbitraryOptions => ({
  ...opts,
  pointer: `${opts.pointer ?? "#"}/${tokens.map(pointerToken).join("/")}`,
});

const MAX_DEPTH = 6;
// Past MAX_DEPTH values are kept as small as the schema allows (required properties only, the
// fewest items, scalar branches first) instead of cut to null: a null where the schema requires an
// object or a string made every draw of a deep required graph invalid (Stripe's charge, invoice,
// payment_intent: the fixture could not answer them at all). Only a chain of required properties
// deeper than HARD_DEPTH still ends in null.
const HARD_DEPTH = MAX_DEPTH * 3;

/** Whether a branch is drawn without nesting: the cheap way out of a deep `anyOf` (Stripe's expandable `string | object`). */
const isScalar = (b: any) => b === true || (b && typeof b === "object" && !b.properties && !b.items && !b.allOf && !b.anyOf && !b.oneOf && !["object", "array"].includes(b.type) && !(Array.isArray(b.type) && b.type.some((t: string) => t === "object" || t === "array")));

/**
 * `fc.oneof` over the branches of an `anyOf`/`oneOf` (or a `type` array), where a branch that cannot
 * be drawn (its generation budget ran out: Box's `pattern: ".^"`) gives way to the next branch that
 * can, instead of failing every draw that picks it and so skipping the whole operation. A draw that
 * picks a branch which works is unchanged (same random stream, same value).
 */
function alternatives(branches: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  if (branches.length === 1) return branches[0];
  const dead = new Set<number>();
  return fc.oneof(...branches.map((_, own) => new Fallback(branches, own, dead)));
}

class Fallback extends fc.Arbitrary<unknown> {
  private readonly all: fc.Arbitrary<unknown>[];
  private readonly own: number;
  private readonly dead: Set<number>;
  constructor(all: fc.Arbitrary<unknown>[], own: number, dead: Set<number>) {
    super();
    this.all = all;
    this.own = own;
    this.dead = dead;
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<unknown> {
    let first: GenerationBudgetExceeded | undefined;
    for (const j of [this.own, ...this.all.keys()]) {
      if (this.dead.has(j)) continue;
      try {
        const v = this.all[j].generate(mrng, biasFactor);
        return new fc.Value(v.value, { branch: j, context: v.context });
      } catch (error) {
        if (!(error instanceof GenerationBudgetExceeded)) throw error;
        this.dead.add(j);
        first ??= error;
      }
    }
    throw first ?? new GenerationBudgetExceeded("#", 0);
  }
  canShrinkWithoutContext(_value: unknown): _value is unknown {
    return false;
  }
  shrink(value: unknown, context: unknown): fc.Stream<fc.Value<unknown>> {
    const c = context as { branch: number; context: unknown } | undefined;
    if (!c) return fc.Stream.nil();
    return this.all[c.branch].shrink(value, c.context).map((v) => new fc.Value(v.value, { branch: c.branch, context: v.context }));
  }
}

let built = 0;
/** How many schema nodes have been turned into arbitraries so far (tests bound it). */
export function arbitrariesBuilt(): number {
  return built;
}

/**
 * An arbitrary built on its first draw. Schemas are shared objects and cyclic (Stripe's responses
 * reach 18,000 of them), so building every property and branch eagerly to MAX_DEPTH cost about a
 * second and 90 MB per response and gigabytes per run; deferred, the cost follows what is drawn.
 * It delegates generate and shrink unchanged, so the random stream, and so every value drawn for a
 * seed, is the same as when the tree was built eagerly.
 */
class Deferred<T> extends fc.Arbitrary<T> {
  private make: (() => fc.Arbitrary<T>) | undefined;
  private arb: fc.Arbitrary<T> | undefined;
  constructor(make: () => fc.Arbitrary<T>) {
    super();
    this.make = make;
  }
  private get inner(): fc.Arbitrary<T> {
    if (!this.arb) {
      this.arb = this.make!();
      this.make = undefined;
    }
    return this.arb;
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    return this.inner.generate(mrng, biasFactor);
  }
  canShrinkWithoutContext(value: unknown): value is T {
    return this.inner.canShrinkWithoutContext(value);
  }
  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.inner.shrink(value, context);
  }
}

/** arbitraryFor, built when first drawn from: for properties, items and branches. */
function deferred(schema: JsonSchema, opts: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  return new Deferred(() => arbitraryFor(schema, opts, depth));
}

export function arbitraryFor(schema: JsonSchema, opts: ArbitraryOptions = {}, depth = 0): fc.Arbitrary<unknown> {
  built++;
  if (schema === true || schema === undefined) return anyJson(depth);
  if (schema === false) return fc.constant(null);
  const s: any = schema;
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.allOf) && s.allOf.length) return arbitraryFor(mergeAllOf(s), opts, depth);
  const branches = s.oneOf ?? s.anyOf;
  if (Array.isArray(branches) && branches.length) {
    const { oneOf: _o, anyOf: _a, ...rest } = s;
    const keyword = s.oneOf ? "oneOf" : "anyOf";
    const indexed = branches.map((b: any, i: number) => [b, i] as const);
    const scalar = depth >= MAX_DEPTH ? indexed.filter(([b]) => isScalar(b)) : [];
    // A discriminator's value for the branch, present, unless the branch pins it itself (CL11).
    const hint = discriminatorHint(s);
    const named = (b: any, i: number) => {
      const values = hint?.values[i];
      return values && !fixesProperty(b, hint!.property) ? [{ properties: { [hint!.property]: { enum: values } }, required: [hint!.property] }] : [];
    };
    return alternatives((scalar.length ? scalar : indexed).map(([b, i]) => new Deferred(() => arbitraryFor(mergeAllOf({ allOf: [rest, b, ...named(b, i)] }), at(opts, keyword, i), depth))));
  }
  let type = s.type;
  if (Array.isArray(type)) {
    return alternatives(type.map((t: string) => arbitraryFor({ ...s, type: t }, opts, depth)));
  }
  if (!type) type = s.properties || s.required ? "object" : s.items ? "array" : undefined;
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return integerArb(s);
    case "number":
      return numberArb(s, opts);
    case "string":
      return stringArb(s, opts);
    case "array":
      return arrayArb(s, opts, depth);
    case "object":
      return objectArb(s, opts, depth);
    default:
      return anyJson(depth);
  }
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  return depth > 2 ? fc.oneof(fc.string(), fc.integer(), fc.boolean()) : fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
}

/**
 * The range a sized integer format allows, as far as values are drawn from it: int32 exactly;
 * int64 up to what a double holds exactly (the values beyond are sent as edge cases, coverage.ts).
 */
export function formatRange(s: any): { min: number; max: number } | undefined {
  if (s?.format === "int32") return { min: -(2 ** 31), max: 2 ** 31 - 1 };
  if (s?.format === "int64") return { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
  // The OpenAPI Format Registry's other sized integers, as the validator checks them.
  const sized = SIZED[s?.format as string];
  return sized && { min: sized[0], max: Math.min(sized[1], Number.MAX_SAFE_INTEGER) };
}

const SIZED: Record<string, [number, number]> = { int8: [-128, 127], int16: [-32768, 32767], uint8: [0, 255], uint16: [0, 65535], uint32: [0, 2 ** 32 - 1], uint64: [0, 2 ** 64 - 1] };

export function integerBounds(s: any): { min: number; max: number } {
  // A sized format is a range: without minimum/maximum, values come from the whole of it
  // (fast-check favours its ends), not from [-1e6, 1e6], so the format's edges are drawn too.
  const range = s.type === "integer" || (Array.isArray(s.type) && s.type.includes("integer")) ? formatRange(s) : undefined;
  let min = typeof s.minimum === "number" ? Math.ceil(s.minimum) : (range?.min ?? -1_000_000);
  let max = typeof s.maximum === "number" ? Math.floor(s.maximum) : (range?.max ?? 1_000_000);
  if (range) {
    min = Math.max(min, range.min);
    max = Math.min(max, range.max);
  }
  if (typeof s.exclusiveMinimum === "number") min = Math.max(min, Math.floor(s.exclusiveMinimum) + 1);
  if (typeof s.exclusiveMaximum === "number") max = Math.min(max, Math.ceil(s.exclusiveMaximum) - 1);
  // Bounds like ±9223372036854776000 (int64 in OpenAI's contract) are not integers JavaScript can
  // count in; fc.integer never returns on them. Values are drawn from the safe range inside them.
  return { min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) };
}

function integerArb(s: any): fc.Arbitrary<number> {
  const { min, max } = integerBounds(s);
  const step = typeof s.multipleOf === "number" && Number.isInteger(s.multipleOf) && s.multipleOf > 0 ? s.multipleOf : 1;
  const lo = Math.ceil(min / step);
  const hi = Math.floor(max / step);
  if (lo > hi) return fc.constant(min);
  return fc.integer({ min: lo, max: hi }).map((k) => k * step);
}

function numberArb(s: any, opts: ArbitraryOptions): fc.Arbitrary<number> {
  // `type: number, format: int32` (and the other sized integers) holds integers only.
  if (formatRange(s)) return integerArb({ ...s, type: "integer" });
  if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
    // k * multipleOf for every k that lands inside the bounds.
    const { min, max } = integerBounds({ ...s, minimum: undefined, maximum: undefined, exclusiveMinimum: undefined, exclusiveMaximum: undefined });
    const lo = Math.max(min, Math.ceil((s.minimum ?? s.exclusiveMinimum ?? -1e6) / s.multipleOf));
    const hi = Math.min(max, Math.floor((s.maximum ?? s.exclusiveMaximum ?? 1e6) / s.multipleOf));
    const inside = (n: number) => (typeof s.exclusiveMinimum !== "number" || n > s.exclusiveMinimum) && (typeof s.exclusiveMaximum !== "number" || n < s.exclusiveMaximum);
    return lo > hi ? fc.constant(lo * s.multipleOf) : budgetedFilter(fc.integer({ min: lo, max: hi }).map((k) => k * s.multipleOf), inside, opts.pointer ?? "#");
  }
  const min = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : -1e6;
  const max = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : 1e6;
  return budgetedFilter(
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    (n) => (typeof s.exclusiveMinimum !== "number" || n > s.exclusiveMinimum) && (typeof s.exclusiveMaximum !== "number" || n < s.exclusiveMaximum),
    opts.pointer ?? "#",
  );
}

const LOWER = "abcdefghijklmnopqrstuvwxyz0123456789";
const label = fc.string({ unit: fc.constantFrom(...LOWER), minLength: 1, maxLength: 10 });

/** A format's values: tame ones and, as often, the hostile ones of hostile-formats.ts. */
function formatArb(format: string): fc.Arbitrary<string> | undefined {
  const tame = tameFormatArb(format);
  const hostile = hostileFormat(format);
  // Only what the validator's reading of the format accepts (its `url` wants a dotted name).
  const schema = { type: "string", format };
  return tame && hostile ? fc.oneof(tame, hostile.filter((v) => validate(schema, v).valid)) : tame;
}

function tameFormatArb(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case "email":
    case "idn-email":
      return fc.tuple(label, label).map(([a, b]) => `${a}@${b}.test`);
    case "hostname":
    case "idn-hostname":
      return fc.tuple(label, label).map(([a, b]) => `${a}.${b}.test`);
    case "date-time":
      return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
    case "date":
      return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case "time":
      return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(86_399_000) }).map((d) => `${d.toISOString().slice(11, 19)}Z`);
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
      return label.map((p) => `https://example.test/${p}`);
    case "uuid":
      return fc.uuid();
    case "ipv4":
      return fc.ipV4();
    case "ipv6":
      return fc.ipV6();
    case "byte":
      return fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString("base64"));
    case "base64url":
      return fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString("base64url"));
    // The formats below were validated but not drawn: a field using one (GitHub's 33 `uri-template`
    // links in its root document) made every value fail, so no positive case or fixture answer
    // could be built. formats.test.ts draws every format the validator knows.
    case "uri-template":
      return fc.tuple(label, label).map(([a, b]) => `https://example.test/${a}{/${b}}{?page,per_page}`);
    case "iri-reference":
      return label.map((p) => `/${p}`);
    case "json-pointer":
      return fc.array(label, { maxLength: 3 }).map((parts) => parts.map((p) => `/${p}`).join(""));
    case "json-pointer-uri-fragment":
      return fc.array(label, { maxLength: 3 }).map((parts) => `#${parts.map((p) => `/${p}`).join("")}`);
    case "relative-json-pointer":
      return fc.tuple(fc.nat(3), fc.array(label, { maxLength: 2 })).map(([up, parts]) => `${up}${parts.map((p) => `/${p}`).join("")}`);
    case "regex":
      return label.map((l) => `^${l}[a-z0-9]*$`);
    case "duration":
      return fc.tuple(fc.nat(30), fc.nat(23), fc.nat(59)).map(([d, h, m]) => `P${d}DT${h}H${m}M`);
    case "iso-time":
    case "time-local":
      return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(86_399_000) }).map((d) => d.toISOString().slice(11, 19));
    case "iso-date-time":
    case "date-time-local":
      return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 19));
    case "http-date":
      return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toUTCString());
    case "decimal":
    case "decimal128":
      return fc.tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.nat(99)).map(([i, f]) => `${i}.${String(f).padStart(2, "0")}`);
    case "char":
      return fc.constantFrom(...LOWER);
    default:
      return undefined;
  }
}

function stringArb(s: any, opts: ArbitraryOptions): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = s.maxLength ?? Math.max(minLength + 16, 16);
  // Formats and patterns have their own natural length; only a declared maxLength bounds them.
  const fits = (v: string) => [...v].length >= minLength && [...v].length <= (s.maxLength ?? Infinity);
  if (s.contentEncoding === "base64") return formatArb("byte")!;
  const byFormat = s.format ? formatArb(s.format) : undefined;
  const where = opts.pointer ?? "#";
  if (byFormat) return budgetedFilter(byFormat, fits, where);
  if (typeof s.pattern === "string") {
    const re = safeRegExp(s.pattern);
    // fast-check cannot generate from lookarounds; generate from the pattern without them and
    // keep what the full pattern accepts. Unbounded repetitions are bounded to the schema's
    // lengths first (pattern-bounds.ts), so long exact lengths come out by construction.
    for (const plain of [s.pattern, withoutLookarounds(s.pattern)]) {
      const bounded = boundPattern(plain, minLength, s.maxLength);
      for (const source of bounded && bounded !== plain ? [bounded, plain] : [plain]) {
        try {
          const matching = budgetedFilter(fc.stringMatching(new RegExp(source)), (v) => fits(v) && (!re || re.test(v)), `${where}/pattern`);
          const examples = (s.examples ?? []).filter((e: unknown) => typeof e === "string" && fits(e) && (!re || re.test(e)));
          return examples.length ? fc.oneof(matching, fc.constantFrom(...examples)) : matching;
        } catch {
          /* try the next form; plain strings are the last resort, filtered by the validator later */
        }
      }
    }
  }
  // Non-ASCII in every free string but header, path and cookie values (unicode-strings.ts).
  const unit = opts.token ? fc.constantFrom(...`${LOWER}ABCDEFGHIJKLMNOPQRSTUVWXYZ-_`) : textUnit;
  return fc.string({ unit, minLength, maxLength: Math.min(maxLength, minLength + 24) });
}

function arrayArb(s: any, opts: ArbitraryOptions, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = s.minItems ?? 0;
  const maxLength = Math.min(s.maxItems ?? minLength + 3, minLength + 3);
  if (depth >= MAX_DEPTH && minLength === 0) return fc.constant([]);
  const items = depth >= HARD_DEPTH ? fc.constant(null) : deferred(s.items ?? {}, at(opts, "items"), depth + 1);
  // A 3.1 tuple (`prefixItems`, closed by `items: false`): each position from its own schema, then
  // the items after it. Drawn from `items` alone, no value passed (decision CL13).
  if (Array.isArray(s.prefixItems) && s.prefixItems.length) {
    const n = s.prefixItems.length;
    const prefix = fc.tuple(...s.prefixItems.map((p: JsonSchema, i: number) => (depth >= HARD_DEPTH ? fc.constant(null) : deferred(p, at(opts, "prefixItems", i), depth + 1))));
    const restMin = Math.max(0, minLength - n);
    const restMax = s.items === false ? 0 : Math.max(restMin, Math.min((s.maxItems ?? Infinity) - n, restMin + 2));
    if (restMax <= 0) return prefix.map((t) => t.slice(0, s.maxItems ?? n));
    return fc.tuple(prefix, fc.array(items, { minLength: restMin, maxLength: restMax })).map(([a, b]) => [...a, ...b]);
  }
  if (s.uniqueItems) {
    // Not fc.uniqueArray: it draws until it has minLength distinct items, forever when the items
    // have fewer values (an enum of two under minItems 3). Duplicates are dropped instead, within
    // the generation budget.
    const distinct = (a: unknown[]) => [...new Map(a.map((v) => [JSON.stringify(v), v])).values()].slice(0, maxLength);
    return budgetedFilter(fc.array(items, { minLength, maxLength: maxLength + 3 }).map(distinct), (a) => a.length >= minLength, `${opts.pointer ?? "#"}/uniqueItems`);
  }
  return fc.array(items, { minLength, maxLength });
}

function objectArb(s: any, opts: ArbitraryOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required: string[] = s.required ?? [];
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries<any>(s.properties ?? {})) {
    // The server owns readOnly properties and the client writeOnly ones: the request and response
    // views (schema-normalize.ts) keep only the marker that matters on their side.
    if ((prop?.readOnly || prop?.writeOnly) && !required.includes(name)) continue;
    if (opts.overrides && Object.hasOwn(opts.overrides, name)) record[name] = fc.constant(opts.overrides[name]);
    else if (depth >= MAX_DEPTH && !required.includes(name)) continue;
    else record[name] = depth >= HARD_DEPTH ? fc.constant(null) : deferred(prop, at(opts, "properties", name), depth + 1);
  }
  for (const name of required) if (!(name in record)) record[name] = anyJson(depth + 1);
  // minProperties beyond the required ones: the first optional properties become drawn always.
  const requiredKeys = required.filter((r) => r in record);
  const fewest = typeof s.minProperties === "number" ? s.minProperties : 0;
  const patterned = patternEntries(s, opts, depth, Math.max(0, fewest - Object.keys(record).length));
  for (const name of Object.keys(record)) if (requiredKeys.length < fewest && !requiredKeys.includes(name)) requiredKeys.push(name);
  const declared0 = fc.record(record, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
  // Names matching `patternProperties` (3.1; also 3.0 tools), with their schemas' values (CL13).
  const declared = patterned ? fc.tuple(declared0, patterned).map(([obj, more]) => withOwnProperties(obj, more.filter(([k]) => !Object.hasOwn(obj, k)))) : declared0;
  const extra = undeclaredKeys(s);
  if (!extra.length || depth >= MAX_DEPTH) return declared;
  // Where the schema lets undeclared properties through, a valid value may carry some, and the
  // names that trip naive JSON handling (__proto__, constructor) are among them.
  const value = s.additionalProperties && typeof s.additionalProperties === "object" ? deferred(s.additionalProperties, at(opts, "additionalProperties"), depth + 1) : anyJson(depth + 1);
  return fc
    // Not fc.uniqueArray over the names: its uniqueness bookkeeping treats "constructor" as seen.
    .tuple(declared, fc.option(fc.subarray(extra, { minLength: 1, maxLength: 2 }).chain((keys) => fc.tuple(...keys.map((k) => value.map((v): [string, unknown] => [k, v])))), { freq: 3 }))
    .map(([obj, more]) => withOwnProperties(obj, more ?? []));
}

/**
 * Entries whose names match one of `patternProperties`' patterns, at least `atLeast` of them
 * (what minProperties needs beyond the declared properties), or undefined without patterns.
 */
function patternEntries(s: any, opts: ArbitraryOptions, depth: number, atLeast: number): fc.Arbitrary<[string, unknown][]> | undefined {
  if (!s.patternProperties || typeof s.patternProperties !== "object" || depth >= MAX_DEPTH) return undefined;
  const entries = Object.entries<any>(s.patternProperties).flatMap(([pattern, schema]) => {
    try {
      const name = fc.stringMatching(new RegExp(pattern, "u")).filter((k) => k.length > 0 && k.length <= 40);
      return [fc.tuple(name, deferred(schema, at(opts, "patternProperties", pattern), depth + 1))];
    } catch {
      return []; // a pattern fast-check cannot draw from: re-validation decides, as before
    }
  });
  if (!entries.length) return undefined;
  return fc.array(fc.oneof(...entries), { minLength: atLeast, maxLength: atLeast + 2 });
}

/** Property names that JSON parsers and object merges get wrong, plus an ordinary one. */
export const TRICKY_PROPERTY_NAMES = ["__proto__", "constructor", "prototype", "x-undeclared"];

function undeclaredKeys(s: any): string[] {
  if (s.additionalProperties === false || s.unevaluatedProperties === false || s.patternProperties) return [];
  return TRICKY_PROPERTY_NAMES.filter((k) => !Object.hasOwn(s.properties ?? {}, k));
}

/** Adds keys as own data properties: `obj["__proto__"] = v` would set the prototype instead. */
export function withOwnProperties(obj: Record<string, unknown>, entries: [string, unknown][]): Record<string, unknown> {
  const out = { ...obj };
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The alternatives a schema offers: each oneOf/anyOf branch merged with the schema's own keywords,
 * or the schema itself. Coverage and mutations walk every alternative; what they produce is
 * re-validated, so a value from one branch that another rejects costs nothing.
 */
export function alternativesOf(schema: JsonSchema): JsonSchema[] {
  if (typeof schema !== "object" || schema === null) return [schema];
  const { oneOf, anyOf, ...rest } = schema as any;
  const branches = oneOf ?? anyOf;
  if (!Array.isArray(branches) || !branches.length) return [schema];
  return branches.map((b: any) => mergeAllOf({ allOf: [rest, b] }));
}

/** Shallow merge of allOf branches: enough for the composition styles contracts use in practice. */
export function mergeAllOf(s: any): any {
  const { allOf, ...rest } = s;
  const out: any = { ...rest };
  for (const part0 of allOf ?? []) {
    const part = part0?.allOf ? mergeAllOf(part0) : part0;
    if (!part || typeof part !== "object") continue;
    for (const [k, v] of Object.entries<any>(part)) {
      if (k === "properties") out.properties = { ...(out.properties ?? {}), ...v };
      else if (k === "required") out.required = [...new Set([...(out.required ?? []), ...v])];
      else if (k === "minimum" || k === "minLength" || k === "minItems") out[k] = Math.max(out[k] ?? -Infinity, v);
      else if (k === "maximum" || k === "maxLength" || k === "maxItems") out[k] = Math.min(out[k] ?? Infinity, v);
      else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

/**
 * The pattern with its lookahead and lookbehind groups removed, nested groups and all: what is left
 * generates a superset, which the full pattern then filters. Escapes and character classes are
 * skipped over, so a `(` inside `[...]` or after `\\` opens nothing.
 */
export function withoutLookarounds(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (pattern[i] === "[") {
      const end = classEnd(pattern, i);
      out += pattern.slice(i, end + 1);
      i = end;
    } else if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) {
      i = groupEnd(pattern, i);
    } else out += pattern[i];
  }
  return out;
}

function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return pattern.length - 1;
}

function groupEnd(pattern: string, start: number): number {
  let depth = 0;
  for (let i = start; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "[") i = classEnd(pattern, i);
    else if (pattern[i] === "(") depth++;
    else if (pattern[i] === ")" && --depth === 0) return i;
  }
  return pattern.length - 1;
}

function safeRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source, "u");
  } catch {
    return undefined;
  }
}
