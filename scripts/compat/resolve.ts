// Resolution before comparing, so that two documents that mean the same compare equal: $refs
// followed (3.1 siblings of a $ref applied over its target), a single-member allOf merged into
// its parent, `anyOf/oneOf: [X, {type: null}]` read as a nullable X, 3.0 `nullable` and 3.1
// `type: [..., "null"]` read alike, 3.0 boolean exclusive bounds read as 3.1 numeric ones, and
// multi-member allOf flattened (its members are compared as members, its content as one schema).
import type { Doc } from "./load.ts";

export type Schema = Record<string, any>;

/** The schema a node stands for, $refs followed; `name` is the last ref's component name. */
export function deref(doc: Doc, node: any): { node: any; name?: string } {
  let name: string | undefined;
  const siblings: Schema = {};
  for (
    let hops = 0;
    node && typeof node === "object" && typeof node.$ref === "string" && hops < 64;
    hops++
  ) {
    const ref: string = node.$ref;
    for (const [k, v] of Object.entries(node))
      if (k !== "$ref" && !(k in siblings)) siblings[k] = v;
    name = ref.split("/").pop();
    const target = pointer(doc, ref);
    if (target === undefined) return { node: { "x-compat-unresolved": ref }, name };
    node = target;
  }
  if (Object.keys(siblings).length && node && typeof node === "object")
    node = { ...node, ...siblings };
  return { node, name };
}

export function pointer(doc: Doc, ref: string): any {
  if (!ref.startsWith("#")) return undefined;
  const parts = ref.slice(1).split("/").slice(1);
  let n: any = doc;
  for (const p of parts) {
    if (n === undefined || n === null) return undefined;
    n = n[decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return n;
}

export interface Normal {
  /** The schema after resolution (never a $ref). */
  s: Schema;
  /** The node identity used to stop on recursive schemas. */
  id: object;
  name?: string;
  /** Non-null types, or undefined when any type is allowed. */
  types?: Set<string>;
  nullable: boolean;
  /** Upper and lower bounds as { value, exclusive }. */
  max?: Bound;
  min?: Bound;
  /** Members of a flattened allOf, kept to compare membership. */
  allOf?: { raw: any; s: Schema; name?: string }[];
}
export interface Bound {
  value: number;
  exclusive: boolean;
}

/** Keywords that describe a value without constraining it. */
export const annotationKeys = new Set([
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
  "default",
  "$id",
  "$schema",
  "$anchor",
]);
export const isAnnotationOnly = (s: Schema) =>
  s &&
  typeof s === "object" &&
  Object.keys(s).every((k) => annotationKeys.has(k) || k.startsWith("x-"));

const isNullSchema = (doc: Doc, m: any) => {
  const s = deref(doc, m).node;
  return (
    s &&
    typeof s === "object" &&
    (s.type === "null" || (Array.isArray(s.type) && s.type.length === 1 && s.type[0] === "null")) &&
    Object.keys(s).every((k) => k === "type" || annotationKeys.has(k))
  );
};

export function normalize(doc: Doc, raw: any, within: Set<object> = new Set()): Normal {
  const { node, name } = deref(doc, raw);
  const id = node && typeof node === "object" ? node : { value: node };
  let s: Schema =
    node === true || node === undefined || node === null ? {} : node === false ? { not: {} } : node;
  let nullable = s.nullable === true;
  // anyOf/oneOf of X and null: a nullable X.
  for (const key of ["anyOf", "oneOf"]) {
    const list = s[key];
    if (Array.isArray(list) && list.length === 2 && list.some((m) => isNullSchema(doc, m))) {
      const other = list.find((m) => !isNullSchema(doc, m));
      const rest = { ...s };
      delete rest[key];
      const inner = deref(doc, other).node;
      s = { ...(inner && typeof inner === "object" ? inner : {}), ...rest };
      nullable = true;
    }
  }
  // allOf: a single member is the schema itself; several are flattened into one.
  let allOf: Normal["allOf"];
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    const members = s.allOf.map((m: any) => {
      const d = deref(doc, m);
      // A schema reached again through its own allOf adds nothing more (recursive documents).
      const target = deref(doc, m).node;
      const inner =
        target && typeof target === "object" && (within.has(target) || within.size > 32)
          ? normalize(doc, {})
          : normalize(doc, m, new Set([...within, id]));
      return { raw: m, s: inner.s, name: d.name, nullable: inner.nullable };
    });
    const rest: Schema = { ...s };
    delete rest.allOf;
    const merged: Schema = {};
    for (const m of members) mergeInto(merged, m.s);
    mergeInto(merged, rest);
    if (members.length > 1) allOf = members;
    s = merged;
    if (
      members.every((m: any) => m.nullable || isAnnotationOnly(m.s)) &&
      members.some((m: any) => m.nullable)
    )
      nullable = true;
  }
  // Without anyOf/oneOf/if/dependentSchemas (allOf is flattened above), unevaluatedProperties sees
  // exactly the properties additionalProperties sees: TypeSpec writes one in 3.1, the other in 3.0.
  if (
    s.unevaluatedProperties !== undefined &&
    s.additionalProperties === undefined &&
    !s.anyOf &&
    !s.oneOf &&
    !s.if &&
    !s.dependentSchemas
  ) {
    s = { ...s, additionalProperties: s.unevaluatedProperties };
    delete s.unevaluatedProperties;
  }
  if (
    s.unevaluatedItems !== undefined &&
    s.items === undefined &&
    !s.prefixItems &&
    !s.anyOf &&
    !s.oneOf &&
    !s.if &&
    !s.contains
  ) {
    s = { ...s, items: s.unevaluatedItems };
    delete s.unevaluatedItems;
  }
  // Raw bytes of a non-JSON body: 3.0 writes `type: string, format: binary`, 3.1 a
  // `contentMediaType` (or nothing at all) for the same bytes (OpenAPI 3.1 §4.8.24.3.2).
  if (
    (s.type === "string" && s.format === "binary") ||
    (s.contentMediaType !== undefined && s.contentEncoding === undefined && (s.type === undefined || s.type === "string"))
  ) {
    const { type: _type, format: _format, contentMediaType: _media, ...rest } = s;
    s = rest;
  }
  let types: Set<string> | undefined;
  if (typeof s.type === "string") types = new Set([s.type]);
  else if (Array.isArray(s.type)) types = new Set(s.type);
  if (types?.has("null")) {
    nullable = true;
    types.delete("null");
    if (types.size === 0) types = new Set(["null"]);
  }
  if (Array.isArray(s.enum) && s.enum.includes(null)) nullable = true;
  const max = bound(s.maximum, s.exclusiveMaximum);
  const min = bound(s.minimum, s.exclusiveMinimum);
  return { s, id, name, types, nullable, max, min, allOf };
}

function bound(inclusive: unknown, exclusive: unknown): Bound | undefined {
  if (typeof exclusive === "number") {
    if (typeof inclusive === "number" && inclusive !== exclusive)
      return { value: inclusive, exclusive: false };
    return { value: exclusive, exclusive: true };
  }
  if (typeof inclusive === "number") return { value: inclusive, exclusive: exclusive === true };
  return undefined;
}

/** allOf merge: properties and required are united, other keywords the first one wins. */
function mergeInto(target: Schema, s: Schema): void {
  for (const [k, v] of Object.entries(s)) {
    if (k === "properties" && v && typeof v === "object")
      target.properties = { ...(target.properties ?? {}), ...v };
    else if (k === "required" && Array.isArray(v))
      target.required = [...new Set([...(target.required ?? []), ...v])];
    else if (!(k in target)) target[k] = v;
  }
}

/** Stable JSON of a raw (unresolved) node, for matching list members by content. */
export function fingerprint(v: unknown): string {
  const seen = new Set<unknown>();
  const norm = (x: any): any => {
    if (!x || typeof x !== "object") return x;
    if (seen.has(x)) return "[cycle]";
    seen.add(x);
    const out = Array.isArray(x)
      ? x.map(norm)
      : Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, norm(x[k])]),
        );
    seen.delete(x);
    return out;
  };
  return JSON.stringify(norm(v));
}
