// Compares two schemas keyword by keyword, in the direction of the value (rules.ts says why each
// change is what it is). Every keyword is either compared here, ignored as an annotation, or,
// when it differs and no rule knows it, reported as unclassified.
import type { Doc } from "./load.ts";
import {
  fingerprint,
  isAnnotationOnly,
  normalize,
  type Bound,
  type Normal,
  type Schema,
} from "./resolve.ts";
import { ruleOf, type Direction, type Where } from "./rules.ts";

export interface SchemaCtx {
  dir: Direction;
  where: Where;
  /** JSON pointer segments of the value in the revision (or base, when only there). */
  ptr: (string | number)[];
  base: Doc;
  rev: Doc;
  /** Inside a readOnly value of a request or a writeOnly value of a response: never on the wire. */
  exempt?: boolean;
  /** The media type is not JSON (form, text): scalar types travel as text, so their changes are compatible. */
  loose?: boolean;
  emit: (id: string, message: string, ptr: (string | number)[]) => void;
  seen: Map<object, Set<object>>;
  depth: number;
}

const nested: Record<Where, Where> = {
  body: "property",
  property: "property",
  parameter: "parameter-property",
  "parameter-property": "parameter-property",
  header: "header-property",
  "header-property": "header-property",
};

// Keywords compared below (or on purpose not compared: annotations and resolution artefacts).
const handled = new Set([
  "type",
  "nullable",
  "format",
  "enum",
  "const",
  "default",
  "pattern",
  "multipleOf",
  "maximum",
  "minimum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "prefixItems",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "discriminator",
  "if",
  "then",
  "else",
  "contains",
  "dependentRequired",
  "dependentSchemas",
  "patternProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
  "contentMediaType",
  "contentEncoding",
  "description",
  "title",
  "summary",
  "example",
  "examples",
  "externalDocs",
  "$comment",
  "xml",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$id",
  "$schema",
  "$anchor",
  "$defs",
  "definitions",
  "$dynamicAnchor",
  "x-extensible-enum",
  "x-stability-level",
  "x-sunset",
  "x-compat-unresolved",
]);

// What a readOnly value in a request (never sent) or a writeOnly one in a response (never
// returned) exempts, as oasdiff does: the bounds and enum values; other keywords (pattern, type)
// still describe the value and keep their verdict.
// A limit newly set on a readOnly request value (V1: ERR elsewhere) is exempt the same way.
const exemptKinds: Record<Direction, RegExp> = {
  request:
    /^(enum-value-removed|max-decreased|exclusive-max-decreased|max-length-decreased|min-increased|exclusive-min-increased|min-length-increased|(max|min|exclusive-max|exclusive-min|max-length|min-length|max-items|min-items|max-properties|min-properties|max-contains|min-contains|unique-items)-set)$/,
  response: /^(enum-value-added|enum-removed)$/,
};

const same = (a: unknown, b: unknown) => fingerprint(a) === fingerprint(b);
const show = (v: unknown) => JSON.stringify(v);
const stability = ["draft", "alpha", "beta", "stable"];

export function diffSchema(baseRaw: any, revRaw: any, c: SchemaCtx): void {
  if (baseRaw === undefined && revRaw === undefined) return;
  const b = normalize(c.base, baseRaw);
  const r = normalize(c.rev, revRaw);
  // Recursive schemas: each pair of nodes is compared once.
  const pairs = c.seen.get(b.id) ?? new Set<object>();
  if (pairs.has(r.id) || c.depth > 48) return;
  pairs.add(r.id);
  c.seen.set(b.id, pairs);
  const bs = b.s;
  const rs = r.s;
  const emit = (kind: string, message: string, at: (string | number)[] = c.ptr) =>
    c.emit(
      c.exempt && exemptKinds[c.dir].test(kind)
        ? `${c.dir}-${c.dir === "request" ? "read-only" : "write-only"}-${c.where}-${kind}`
        : `${c.dir}-${c.where}-${kind}`,
      message,
      at,
    );
  const sub = (
    key: (string | number)[],
    where: Where = nested[c.where],
    exempt = c.exempt,
  ): SchemaCtx => ({ ...c, where, ptr: [...c.ptr, ...key], exempt, depth: c.depth + 1 });

  // Wrapped in oneOf: the old schema is now one alternative of several.
  const wrapped = (m: any) => {
    const n = normalize(c.rev, m);
    return (b.name !== undefined && n.name === b.name) || same(n.s, bs);
  };
  const bareRev = rs.properties === undefined && rs.type === undefined;
  if (
    !bs.oneOf &&
    Array.isArray(rs.oneOf) &&
    (rs.oneOf.some(wrapped) || (bareRev && (bs.properties !== undefined || bs.type !== undefined)))
  ) {
    emit("wrapped-in-one-of", "the schema was wrapped in oneOf");
    return;
  }
  const textParameter =
    c.dir === "request" && (c.where === "parameter" || c.where === "parameter-property")
      ? c.where
      : undefined;
  compareTypes(
    b,
    r,
    emit,
    c.loose ? c.dir : undefined,
    textParameter,
    !!textParameter && arrayOfOneAccepts(baseRaw, rs.items, c),
  );
  if (b.nullable !== r.nullable)
    emit(
      r.nullable ? "became-nullable" : "became-not-nullable",
      r.nullable ? "null is now allowed" : "null is no longer allowed",
    );
  if (bs.format !== rs.format) {
    if (bs.format === undefined) emit("format-added", `format ${rs.format} added`);
    else if (rs.format === undefined) emit("format-removed", `format ${bs.format} removed`);
    else if (!formatWidened(bs.format, rs.format, c.dir))
      emit("format-changed", `format changed from ${bs.format} to ${rs.format}`);
  }
  compareEnum(b, r, c, emit);
  if (!same(bs.const, rs.const)) {
    if (bs.const === undefined) emit("const-added", `const ${show(rs.const)} added`);
    else if (rs.const === undefined) emit("const-removed", `const ${show(bs.const)} removed`);
    else emit("const-changed", `const changed from ${show(bs.const)} to ${show(rs.const)}`);
  }
  if (!same(bs.default, rs.default)) {
    if (bs.default === undefined) emit("default-value-added", `default ${show(rs.default)} added`);
    else if (rs.default === undefined)
      emit("default-value-removed", `default ${show(bs.default)} removed`);
    else
      emit(
        "default-value-changed",
        `default changed from ${show(bs.default)} to ${show(rs.default)}`,
      );
  }
  const pat1 = bs.pattern || undefined; // an empty pattern matches everything
  const pat2 = rs.pattern || undefined;
  if (pat1 !== pat2) {
    if (pat1 === undefined) emit("pattern-added", `pattern ${rs.pattern} added`);
    else if (pat2 === undefined || pat2 === ".*" || pat2 === "^.*$")
      emit("pattern-removed", `pattern ${bs.pattern} removed`);
    else emit("pattern-changed", `pattern changed from ${bs.pattern} to ${rs.pattern}`);
  }
  if (bs.multipleOf !== rs.multipleOf) {
    const m1 = bs.multipleOf as number | undefined;
    const m2 = rs.multipleOf as number | undefined;
    if (m2 === undefined || (m1 !== undefined && Number.isInteger(m1 / m2)))
      emit("multiple-of-relaxed", `multipleOf ${m1} -> ${m2 ?? "none"}`);
    else if (m1 === undefined || Number.isInteger(m2 / m1))
      emit("multiple-of-tightened", `multipleOf ${m1 ?? "none"} -> ${m2}`);
    else emit("multiple-of-changed", `multipleOf ${m1} -> ${m2}`);
  }
  compareBound("max", "upper", b.max, r.max, emit);
  compareBound("min", "lower", b.min, r.min, emit);
  for (const [key, name, side] of [
    ["maxLength", "max-length", "upper"],
    ["minLength", "min-length", "lower"],
    ["maxItems", "max-items", "upper"],
    ["minItems", "min-items", "lower"],
    ["maxProperties", "max-properties", "upper"],
    ["minProperties", "min-properties", "lower"],
    ["maxContains", "max-contains", "upper"],
    ["minContains", "min-contains", "lower"],
  ] as const) {
    const v1 = typeof bs[key] === "number" ? { value: bs[key], exclusive: false } : undefined;
    const v2 = typeof rs[key] === "number" ? { value: rs[key], exclusive: false } : undefined;
    compareBound(name, side, v1, v2, emit);
  }
  if (!!bs.uniqueItems !== !!rs.uniqueItems)
    // uniqueItems narrows like a bound: set, it refuses arrays with repeats.
    emit(
      rs.uniqueItems ? "unique-items-set" : "unique-items-unset",
      `uniqueItems ${rs.uniqueItems ? "set" : "removed"}`,
    );
  compareObject(b, r, c, emit, sub);
  // Arrays.
  // Items are compared when both sides describe arrays; a value that became an array (or stopped
  // being one) is already reported as a type change.
  if (bs.items !== undefined && rs.items !== undefined) {
    if (Array.isArray(bs.items) || Array.isArray(rs.items)) {
      if (!same(bs.items, rs.items))
        emit("prefix-items-" + (rs.items ? "added" : "removed"), "tuple items changed");
    } else diffSchema(bs.items, rs.items, sub(["items"]));
  }
  compareList("prefixItems", "prefix-items", bs, rs, emit, sub);
  compareComposition(b, r, c, emit, sub);
  compareDiscriminator(b, r, c, emit);
  // Subschemas that only constrain: added or removed as a whole, else compared inside.
  for (const [key, name] of [
    ["if", "if"],
    ["then", "then"],
    ["else", "else"],
    ["contains", "contains"],
    ["propertyNames", "property-names"],
    ["unevaluatedItems", "unevaluated-items"],
    ["unevaluatedProperties", "unevaluated-properties"],
    ["contentSchema", "content-schema"],
  ] as const) {
    const x = bs[key];
    const y = rs[key];
    if (x === undefined && y === undefined) continue;
    if (x === undefined || (key.startsWith("unevaluated") && x === true && y === false))
      emit(`${name}-added`, `${key} added`);
    else if (y === undefined || (key.startsWith("unevaluated") && x === false && y === true))
      emit(`${name}-removed`, `${key} removed`);
    else if (typeof x === "object" && typeof y === "object") diffSchema(x, y, sub([key], c.where));
    else if (!same(x, y)) emit(`${name}-added`, `${key} changed`);
  }
  if (!same(bs.not, rs.not)) {
    if (bs.not === undefined) emit("not-added", "not added");
    else if (rs.not === undefined) emit("not-removed", "not removed");
    // Inside not the sense flips in theory; oasdiff compares it like any subschema, and so does the gate.
    else diffSchema(bs.not, rs.not, sub(["not"], c.where));
  }
  compareMap("dependentRequired", "dependent-required", bs, rs, emit, (k) => {
    if (!same(bs.dependentRequired[k], rs.dependentRequired[k]))
      emit("dependent-required-changed", `dependentRequired ${k} changed`);
  });
  compareMap("dependentSchemas", "dependent-schema", bs, rs, emit, (k) =>
    diffSchema(bs.dependentSchemas[k], rs.dependentSchemas[k], sub(["dependentSchemas", k])),
  );
  compareMap("patternProperties", "pattern-property", bs, rs, emit, (k) =>
    diffSchema(bs.patternProperties[k], rs.patternProperties[k], sub(["patternProperties", k])),
  );
  for (const [key, name] of [
    ["contentMediaType", "content-media-type"],
    ["contentEncoding", "content-encoding"],
  ] as const)
    if (bs[key] !== rs[key])
      emit(`${name}-changed`, `${key} changed from ${bs[key] ?? "none"} to ${rs[key] ?? "none"}`);
  if (!!bs.deprecated !== !!rs.deprecated) {
    if (!rs.deprecated) emit("reactivated", "no longer deprecated");
    else if (rs["x-sunset"] === undefined) emit("deprecated", "deprecated");
    else if (Number.isNaN(Date.parse(String(rs["x-sunset"]))))
      emit("deprecated-sunset-invalid", `deprecated with x-sunset ${show(rs["x-sunset"])}`);
    else emit("deprecated-with-sunset", `deprecated, sunset ${rs["x-sunset"]}`);
  }
  if (
    bs["x-stability-level"] !== rs["x-stability-level"] &&
    [bs["x-stability-level"], rs["x-stability-level"]].some(
      (v) => v !== undefined && !stability.includes(v),
    )
  )
    c.emit(
      "api-invalid-stability-level",
      `x-stability-level ${show(rs["x-stability-level"])} is not draft, alpha, beta or stable`,
      [...c.ptr, "x-stability-level"],
    );
  // Only a declared level can go down: none declared promises nothing to compare with.
  const s1 = stability.indexOf(bs["x-stability-level"]);
  const s2 = stability.indexOf(rs["x-stability-level"] ?? "stable");
  if (s1 !== s2 && s1 >= 0 && s2 >= 0)
    emit(
      s2 < s1 ? "stability-decreased" : "stability-increased",
      `x-stability-level ${bs["x-stability-level"] ?? "stable"} -> ${rs["x-stability-level"] ?? "stable"}`,
    );
  // Anything else that differs and is not an extension: no rule covers it.
  for (const k of new Set([...Object.keys(bs), ...Object.keys(rs)]))
    if (!handled.has(k) && !k.startsWith("x-") && !same(bs[k], rs[k]))
      c.emit("unclassified", `schema keyword ${k} changed`, [...c.ptr, k]);
}

/** Whether an exploded array parameter still accepts every single value the scalar one did. */
function arrayOfOneAccepts(scalarRaw: any, itemsRaw: any, c: SchemaCtx): boolean {
  if (!itemsRaw || typeof itemsRaw !== "object") return true;
  let breaks = false;
  diffSchema(scalarRaw, itemsRaw, {
    ...c,
    where: "parameter",
    seen: new Map(),
    emit: (id) => {
      if (ruleOf(id).level === "ERR") breaks = true;
    },
  });
  return !breaks;
}

const typeWidth = (t: Set<string> | undefined): Set<string> | undefined => {
  if (!t) return undefined;
  const out = new Set(t);
  if (out.has("number")) out.add("integer");
  return out;
};
const subset = (a: Set<string> | undefined, b: Set<string> | undefined) =>
  !b || (!!a && [...a].every((x) => b.has(x)));

const scalar = new Set(["string", "number", "integer", "boolean"]);
/**
 * Outside JSON (a form or XML body, a parameter) values travel as text, as oasdiff reads them: a
 * string type holds any value, so a change to string is compatible and, for a parameter, a change
 * from string to another scalar narrows it. An exploded query array also accepts one value.
 */
function compareTypes(
  b: Normal,
  r: Normal,
  emit: (k: string, m: string) => void,
  loose: Direction | undefined,
  textParameter: "parameter" | "parameter-property" | undefined,
  arrayOfOneAccepts: boolean,
): void {
  const t1 = b.types && [...b.types].sort().join(",");
  const t2 = r.types && [...r.types].sort().join(",");
  if (t1 === t2) return;
  const message = `type changed from ${t1 ?? "any"} to ${t2 ?? "any"}`;
  // The receiver's type is string: whatever is sent still parses.
  if (loose && (loose === "request" ? t2 : t1) === "string")
    return emit("type-compatible", `${message} (sent as text)`);
  if (textParameter === "parameter" && t2 === "string")
    return emit("type-generalized", `${message} (a parameter is text)`);
  if (textParameter && t1 === "string" && r.types && [...r.types].every((t) => scalar.has(t)))
    return emit("type-specialized", message);
  if (
    textParameter &&
    t2 === "array" &&
    b.types &&
    [...b.types].every((t) => scalar.has(t)) &&
    arrayOfOneAccepts
  )
    return emit("type-generalized", `${message} (one value is an array of one)`);
  const wb = typeWidth(b.types);
  const wr = typeWidth(r.types);
  if (subset(wb, wr)) emit("type-generalized", message);
  else if (subset(wr, wb)) emit("type-specialized", message);
  else emit("type-changed", message);
}

// Widening a numeric format (int32 to int64, float to double) is fine for what a client sends.
function formatWidened(from: string, to: string, dir: Direction): boolean {
  const order = ["int32", "int64"];
  const f = ["float", "double"];
  for (const o of [order, f])
    if (o.includes(from) && o.includes(to))
      return dir === "request" ? o.indexOf(to) > o.indexOf(from) : o.indexOf(to) < o.indexOf(from);
  return false;
}

function compareEnum(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string) => void,
): void {
  const e1 = Array.isArray(b.s.enum) ? b.s.enum.filter((v: unknown) => v !== null) : undefined;
  const e2 = Array.isArray(r.s.enum) ? r.s.enum.filter((v: unknown) => v !== null) : undefined;
  const extensible = r.s["x-extensible-enum"] === true;
  if (e1 && e2) {
    const k1 = new Set(e1.map(fingerprint));
    const k2 = new Set(e2.map(fingerprint));
    for (const v of e2)
      if (!k1.has(fingerprint(v)))
        emit(
          extensible && c.dir === "response" ? "extensible-enum-value-added" : "enum-value-added",
          `enum value ${show(v)} added`,
        );
    for (const v of e1)
      if (!k2.has(fingerprint(v))) emit("enum-value-removed", `enum value ${show(v)} removed`);
  } else if (!e1 && e2) emit("became-enum", `now an enum of ${show(e2)}`);
  else if (e1 && !e2)
    emit(
      extensible && c.dir === "response" ? "extensible-enum-value-added" : "enum-removed",
      "no longer an enum",
    );
  // oasdiff's x-extensible-enum lists (an open enum given as a list of known values).
  const x1 = b.s["x-extensible-enum"];
  const x2 = r.s["x-extensible-enum"];
  if (Array.isArray(x1) && Array.isArray(x2))
    for (const v of x1)
      if (!x2.some((w) => same(v, w)))
        emit("x-extensible-enum-value-removed", `x-extensible-enum value ${show(v)} removed`);
}

function compareBound(
  name: string,
  side: "upper" | "lower",
  v1: Bound | undefined,
  v2: Bound | undefined,
  emit: (k: string, m: string) => void,
): void {
  if (!v1 && !v2) return;
  if (v1 && v2 && v1.value === v2.value && v1.exclusive === v2.exclusive) return;
  const kind =
    (v2?.exclusive ?? v1?.exclusive) && (name === "max" || name === "min")
      ? `exclusive-${name}`
      : name;
  const message = `${kind}: ${v1 ? v1.value : "none"} -> ${v2 ? v2.value : "none"}`;
  if (!v1) return emit(`${kind}-set`, message);
  if (!v2) return emit(`${kind}-unset`, message);
  // Tighter: a lower upper bound or a higher lower bound, or the same value made exclusive.
  const tighter =
    side === "upper"
      ? v2.value < v1.value || (v2.value === v1.value && v2.exclusive)
      : v2.value > v1.value || (v2.value === v1.value && v2.exclusive);
  emit(`${kind}-${(side === "upper") === tighter ? "decreased" : "increased"}`, message);
}

function compareObject(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string, at?: (string | number)[]) => void,
  sub: (k: (string | number)[], w?: Where, e?: boolean) => SchemaCtx,
): void {
  const p1: Schema = b.s.properties ?? {};
  const p2: Schema = r.s.properties ?? {};
  const req1 = new Set<string>(Array.isArray(b.s.required) ? b.s.required : []);
  const req2 = new Set<string>(Array.isArray(r.s.required) ? r.s.required : []);
  const where = nested[c.where];
  const hidden = (s: Schema | undefined) =>
    !!s && (c.dir === "request" ? s.readOnly === true : s.writeOnly === true);
  for (const name of new Set([...Object.keys(p1), ...Object.keys(p2)])) {
    const at = [...c.ptr, "properties", name];
    const s1 = name in p1 ? normalize(c.base, p1[name]).s : undefined;
    const s2 = name in p2 ? normalize(c.rev, p2[name]).s : undefined;
    const exempt = c.exempt || hidden(s2 ?? s1);
    const id = (kind: string) =>
      exempt
        ? `${c.dir}-${c.dir === "request" ? "read-only" : "write-only"}-${where}-${kind}`
        : `${c.dir}-${where}-${kind}`;
    if (!s1) {
      c.emit(
        id(
          req2.has(name) && s2?.default === undefined
            ? "added-required"
            : req2.has(name)
              ? "added-required"
              : "added-optional",
        ),
        `property ${name} added${req2.has(name) ? " (required)" : ""}`,
        at,
      );
      continue;
    }
    if (!s2) {
      c.emit(
        id(req1.has(name) ? "removed-required" : "removed-optional"),
        `property ${name} removed`,
        at,
      );
      continue;
    }
    if (req1.has(name) !== req2.has(name))
      c.emit(
        id(req2.has(name) ? "became-required" : "became-optional"),
        `property ${name} became ${req2.has(name) ? "required" : "optional"}`,
        at,
      );
    // readOnly values are not sent in a request, writeOnly ones not returned in a response: a
    // property crossing that line appears (a required one must now be sent) or disappears (a
    // response property no longer returned reads as a removed one).
    for (const [flag, label] of [
      ["readOnly", "read-only"],
      ["writeOnly", "write-only"],
    ] as const)
      if (!!s1[flag] !== !!s2[flag]) {
        const hiddenHere = (flag === "readOnly") === (c.dir === "request");
        const kind =
          hiddenHere && !s2[flag] && req2.has(name) && req1.has(name)
            ? `required-became-not-${label}`
            : flag === "writeOnly" && c.dir === "response" && s2[flag] && !c.exempt
              ? `${req1.has(name) ? "required" : "optional"}-became-write-only`
              : `became-${s2[flag] ? "" : "not-"}${label}`;
        c.emit(`${c.dir}-${where}-${kind}`, `property ${name} ${kind}`, at);
      }
    diffSchema(p1[name], p2[name], sub(["properties", name], where, exempt));
  }
  // A required name without a declared property constrains nothing a client can see: not compared.
  const a1 = b.s.additionalProperties;
  const a2 = r.s.additionalProperties;
  if (a1 === undefined && a2 === undefined) return;
  const open = (a: any) =>
    a === undefined || a === true || (a && typeof a === "object" && Object.keys(a).length === 0);
  if (open(a1) && open(a2)) return;
  if (a1 === false && a2 !== false)
    emit("additional-properties-relaxed", "additionalProperties no longer false");
  else if (a2 === false && a1 !== false)
    emit("additional-properties-restricted", "additionalProperties became false");
  else if (open(a1))
    emit("additional-properties-restricted", "additionalProperties now has a schema");
  else if (open(a2))
    emit("additional-properties-relaxed", "additionalProperties no longer has a schema");
  else diffSchema(a1, a2, sub(["additionalProperties"]));
}

function compareList(
  key: string,
  name: string,
  bs: Schema,
  rs: Schema,
  emit: (k: string, m: string) => void,
  sub: (k: (string | number)[]) => SchemaCtx,
): void {
  const l1 = bs[key];
  const l2 = rs[key];
  if (!Array.isArray(l1) && !Array.isArray(l2)) return;
  if (!Array.isArray(l1) || (Array.isArray(l2) && l2.length > l1.length))
    emit(`${name}-added`, `${key} added`);
  if (!Array.isArray(l2) || (Array.isArray(l1) && l1.length > l2.length))
    emit(`${name}-removed`, `${key} removed`);
  if (Array.isArray(l1) && Array.isArray(l2))
    for (let i = 0; i < Math.min(l1.length, l2.length); i++)
      diffSchema(l1[i], l2[i], sub([key, i]));
}

function compareMap(
  key: string,
  name: string,
  bs: Schema,
  rs: Schema,
  emit: (k: string, m: string) => void,
  both: (k: string) => void,
): void {
  const m1 = bs[key] ?? {};
  const m2 = rs[key] ?? {};
  for (const k of new Set([...Object.keys(m1), ...Object.keys(m2)])) {
    if (!(k in m1)) emit(`${name}-added`, `${key} ${k} added`);
    else if (!(k in m2)) emit(`${name}-removed`, `${key} ${k} removed`);
    else both(k);
  }
}

/** Matches alternatives of two lists: by component name, then by content, then by title, then in order. */
function matchMembers(
  c: SchemaCtx,
  l1: any[],
  l2: any[],
  name1?: string,
  name2?: string,
): { pairs: [number, number][]; added: number[]; removed: number[] } {
  const n1 = l1.map((m) => normalize(c.base, m));
  const n2 = l2.map((m) => normalize(c.rev, m));
  // A schema standing for itself keeps the component name it was reached by.
  if (name1 && n1.length === 1) n1[0].name = name1;
  if (name2 && n2.length === 1) n2[0].name = name2;
  const free2 = new Set(l2.map((_, i) => i));
  const pairs: [number, number][] = [];
  const left: number[] = [];
  // Two components that exist side by side in both documents are two types, even with the same
  // structure (oasdiff: generated clients tell them apart); otherwise (a component renamed, an
  // inline schema) alternatives are what they accept, refs resolved.
  const component = (d: Doc, name?: string) =>
    !!name && !!d.components?.schemas && name in d.components.schemas;
  const nominal = (i: number, j: number) =>
    !!n1[i].name &&
    !!n2[j].name &&
    n1[i].name !== n2[j].name &&
    component(c.rev, n1[i].name) &&
    component(c.base, n2[j].name);
  const tests: ((i: number, j: number) => boolean)[] = [
    (i, j) => !!n1[i].name && n1[i].name === n2[j].name,
    (i, j) => !nominal(i, j) && fingerprint(n1[i].s) === fingerprint(n2[j].s),
    (i, j) => !nominal(i, j) && equivalent(c, l1[i], l2[j]),
    (i, j) => !!n1[i].s.title && n1[i].s.title === n2[j].s.title,
  ];
  let rest = l1.map((_, i) => i);
  for (const t of tests) {
    const next: number[] = [];
    for (const i of rest) {
      const j = [...free2].find((j) => t(i, j));
      if (j === undefined) next.push(i);
      else {
        pairs.push([i, j]);
        free2.delete(j);
      }
    }
    rest = next;
  }
  // Same count of unnamed members left on both sides: they were edited in place. Named ones
  // (component refs) that differ are another alternative, not an edit.
  if (
    rest.length === free2.size &&
    rest.every((i) => !n1[i].name) &&
    [...free2].every((j) => !n2[j].name)
  ) {
    const f = [...free2];
    rest.forEach((i, k) => pairs.push([i, f[k]]));
    return { pairs, added: [], removed: [] };
  }
  // An alternative replaced by one that breaks nobody in this direction (a wider one in a
  // request, a narrower one in a response) is an edit of it, compared inside.
  for (const i of rest) {
    const j = [...free2].find((j) => !nominal(i, j) && compatibleReplacement(c, l1[i], l2[j]));
    if (j === undefined) left.push(i);
    else {
      pairs.push([i, j]);
      free2.delete(j);
    }
  }
  // One alternative replaced by one other (not two coexisting components): an edit, compared
  // inside, so what the new one accepts decides in both directions (a wider alternative in a
  // response is news to readers even where adding an anyOf alternative is not).
  if (left.length === 1 && free2.size === 1) {
    const j = [...free2][0];
    if (!nominal(left[0], j)) {
      pairs.push([left[0], j]);
      return { pairs, added: [], removed: [] };
    }
  }
  return { pairs, added: [...free2], removed: left };
}

function compareComposition(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string, at?: (string | number)[]) => void,
  sub: (k: (string | number)[], w?: Where) => SchemaCtx,
): void {
  for (const [key, name] of [
    ["anyOf", "any-of"],
    ["oneOf", "one-of"],
  ] as const) {
    const l1: any[] = Array.isArray(b.s[key]) ? b.s[key] : [];
    const l2: any[] = Array.isArray(r.s[key]) ? r.s[key] : [];
    if (!l1.length && !l2.length) continue;
    const m = matchMembers(c, l1, l2);
    for (const j of m.added)
      emit(`${name}-added`, `${key} alternative ${normalize(c.rev, l2[j]).name ?? j} added`, [
        ...c.ptr,
        key,
        j,
      ]);
    for (const i of m.removed)
      emit(`${name}-removed`, `${key} alternative ${normalize(c.base, l1[i]).name ?? i} removed`, [
        ...c.ptr,
        key,
        i,
      ]);
    for (const [i, j] of m.pairs) diffSchema(l1[i], l2[j], sub([key, j], c.where));
  }
  // allOf: membership is compared here; the merged content was compared as one schema above.
  const a1 = b.allOf ?? [];
  const a2 = r.allOf ?? [];
  if (!a1.length && !a2.length) return;
  // A side without allOf stands for itself as the one member. Members are matched as anyOf's are
  // (name, content, title, unnamed ones edited in place); a matched member's content was compared
  // in the merged schema, so only membership is reported here.
  const raw1 = a1.length ? a1.map((m) => m.raw) : Object.keys(b.s).length ? [b.s] : [];
  const raw2 = a2.length ? a2.map((m) => m.raw) : Object.keys(r.s).length ? [r.s] : [];
  const named1 = a1.length ? undefined : b.name;
  const named2 = a2.length ? undefined : r.name;
  const m = matchMembers(c, raw1, raw2, named1, named2);
  for (const j of m.added) {
    const n = normalize(c.rev, raw2[j]);
    emit(
      isAnnotationOnly(n.s) ? "all-of-added-annotation-only" : "all-of-added",
      `allOf member ${n.name ?? j} added`,
      [...c.ptr, "allOf", j],
    );
  }
  for (const i of m.removed) {
    const n = normalize(c.base, raw1[i]);
    emit(
      isAnnotationOnly(n.s) ? "all-of-removed-annotation-only" : "all-of-removed",
      `allOf member ${n.name ?? i} removed`,
      [...c.ptr, "allOf", i],
    );
  }
}

/** Whether the component a discriminator mapping names (a ref, or a bare schema name) is still an alternative of r. */
const mappingRef = (v: string) => (v.startsWith("#") ? v : `#/components/schemas/${v}`);

function compareDiscriminator(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string) => void,
): void {
  const d1 = b.s.discriminator;
  const d2 = r.s.discriminator;
  if (same(d1, d2)) return;
  if (!d1) return emit("discriminator-added", "discriminator added");
  if (!d2) return emit("discriminator-removed", "discriminator removed");
  if (d1.propertyName !== d2.propertyName)
    emit(
      "discriminator-property-name-changed",
      `discriminator property ${d1.propertyName} -> ${d2.propertyName}`,
    );
  const m1: Record<string, string> = d1.mapping ?? {};
  const m2: Record<string, string> = d2.mapping ?? {};
  const alternatives = [
    ...(Array.isArray(r.s.oneOf) ? r.s.oneOf : []),
    ...(Array.isArray(r.s.anyOf) ? r.s.anyOf : []),
  ];
  // The old target, compared by what it accepts: a renamed identical component is the same one.
  const stillAlternative = (ref: string) =>
    alternatives.length === 0 ||
    alternatives.some((a) => equivalent(c, { $ref: mappingRef(ref) }, a));
  for (const k of new Set([...Object.keys(m1), ...Object.keys(m2)])) {
    if (!(k in m1)) emit("discriminator-mapping-added", `mapping ${k} added`);
    else if (!(k in m2)) {
      // Without an entry a value maps to the component of that name (implicit mapping).
      const implicit = mappingRef(m1[k]).split("/").pop() === k;
      if (implicit && normalize(c.rev, { $ref: mappingRef(k) }).s["x-compat-unresolved"] === undefined)
        continue;
      emit(
        stillAlternative(m1[k])
          ? "discriminator-mapping-deleted"
          : "discriminator-mapping-deleted-with-alternative",
        `mapping ${k} deleted`,
      );
    } else if (
      mappingRef(m1[k]) !== mappingRef(m2[k]) &&
      !equivalent(c, { $ref: mappingRef(m1[k]) }, { $ref: mappingRef(m2[k]) })
    )
      emit("discriminator-mapping-changed", `mapping ${k}: ${m1[k]} -> ${m2[k]}`);
  }
}

/**
 * What a change from x (base) to y (revision) would report in c's direction, without reporting
 * it: the levels of its findings. Used to compare alternatives by what they accept, refs resolved.
 */
// Probes are remembered per pair of nodes and context; a pair met again while it is being probed
// (recursive schemas) is taken as equal, so probing stays linear in the pairs compared.
const probes = new WeakMap<object, WeakMap<object, Map<string, Set<string>>>>();
function probe(c: SchemaCtx, x: any, y: any): Set<string> {
  const bx = normalize(c.base, x).id;
  const ry = normalize(c.rev, y).id;
  const key = `${c.dir}|${c.where}|${!!c.exempt}|${!!c.loose}`;
  let inner = probes.get(bx);
  if (!inner) probes.set(bx, (inner = new WeakMap()));
  let byKey = inner.get(ry);
  if (!byKey) inner.set(ry, (byKey = new Map()));
  const known = byKey.get(key);
  if (known) return known;
  const levels = new Set<string>();
  byKey.set(key, levels);
  diffSchema(x, y, {
    ...c,
    ptr: [],
    seen: new Map(),
    depth: c.depth + 1,
    emit: (id) => {
      levels.add(ruleOf(id).level);
    },
  });
  return levels;
}

/** Same accepted values: no finding at all from x (base) to y (revision). */
const equivalent = (c: SchemaCtx, x: any, y: any): boolean => probe(c, x, y).size === 0;

/** y can stand in for x in c's direction: the change from x to y breaks nobody. */
const compatibleReplacement = (c: SchemaCtx, x: any, y: any) => {
  const l = probe(c, x, y);
  return !l.has("ERR") && !l.has("WARN");
};
