// Compares two schemas keyword by keyword, in the direction of the value (rules.ts says why each
// change is what it is). Every keyword is either compared here, ignored as an annotation, or,
// when it differs and no rule knows it, reported as unclassified.
import { annotationKeys, normalize } from "./resolve.ts";
import type { Direction, Where } from "./rules.ts";
import { compareArrays } from "./schema/arrays.ts";
import { compareComposition, compareDiscriminator } from "./schema/composition.ts";
import { compareConstraints } from "./schema/constraints.ts";
import { nested, same, type SchemaCtx } from "./schema/context.ts";
import { compareEnum } from "./schema/enums.ts";
import { compareSchemaLifecycle } from "./schema/lifecycle.ts";
import { compareObject } from "./schema/objects.ts";
import { compareSubschemas } from "./schema/subschemas.ts";
import { arrayOfOneAccepts, compareFormat, compareTypes } from "./schema/types.ts";

export type { SchemaCtx } from "./schema/context.ts";

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
  // Annotations (default among them is compared above; deprecated, readOnly and writeOnly by the parts).
  ...annotationKeys,
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
  compareFormat(bs, rs, c.dir, emit);
  compareEnum(b, r, c, emit);
  compareConstraints(b, r, emit);
  compareObject(b, r, c, emit, sub);
  compareArrays(bs, rs, emit, sub);
  compareComposition(b, r, c, emit, sub);
  compareDiscriminator(b, r, c, emit);
  compareSubschemas(bs, rs, c, emit, sub);
  for (const [key, name] of [
    ["contentMediaType", "content-media-type"],
    ["contentEncoding", "content-encoding"],
  ] as const)
    if (bs[key] !== rs[key])
      emit(`${name}-changed`, `${key} changed from ${bs[key] ?? "none"} to ${rs[key] ?? "none"}`);
  compareSchemaLifecycle(bs, rs, c, emit);
  // Anything else that differs and is not an extension: no rule covers it.
  for (const k of new Set([...Object.keys(bs), ...Object.keys(rs)]))
    if (!handled.has(k) && !k.startsWith("x-") && !same(bs[k], rs[k]))
      c.emit("unclassified", `schema keyword ${k} changed`, [...c.ptr, k]);
}
