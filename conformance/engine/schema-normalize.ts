// Raw OpenAPI schemas -> the schemas the engine works with: JSON Schema 2020-12, references
// resolved to shared objects. Each raw schema node becomes exactly one output node, whatever the
// number of places that use it, so the graph is as large as the part of the document the
// operations use, and a recursive component is a cyclic graph (generators bound their depth, the
// validator turns shared nodes back into `$ref`s). Output nodes are never changed once built, and
// nobody may change them: they are shared.
//
// Only schema positions are walked (properties, items, allOf, ...). `enum`, `const`, `default`,
// `examples` and `x-` extensions are data, kept as written: a `$ref` key inside an example is a
// value, not a reference.
//
// The dialect: OpenAPI 3.0 idioms are rewritten (`nullable`, boolean exclusive bounds), and so are
// the same idioms in 3.1 documents, where real contracts use them too (OpenAI's: `nullable`
// without `type` in 24 places, a boolean `exclusiveMinimum`): they have one sensible reading, and
// left alone ajv refuses the whole schema. Duplicate `required` entries are merged. 2019-09's
// `$recursiveRef` and 2020-12's `$dynamicRef` are resolved lexically, to the enclosing schema that
// declares the anchor, or the component they are written in.
import type { RefResolver } from "./dereference.ts";
import { escapePointer } from "./dereference.ts";
import type { JsonSchema } from "./types.ts";

const SCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas"]);
const SCHEMA_ONE = new Set(["additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose subschemas apply to a part of the instance: a cycle through one ends. */
const DESCENDS = new Set(["properties", "patternProperties", "additionalProperties", "items", "prefixItems", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"]);
/**
 * Documentation, identifiers the resolution below has already used up, and `$defs`, which only
 * matter through a `$ref`, which the resolver follows from the document root.
 */
const DROP = new Set(["example", "xml", "externalDocs", "discriminator", "$schema", "$id", "$anchor", "$comment", "$recursiveAnchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions"]);
/** `$ref` siblings that change nothing about valid values. */
const ANNOTATIONS = new Set(["description", "title", "example", "examples", "$comment", "externalDocs", "deprecated", "xml", "discriminator"]);

const pointers = new WeakMap<object, string>();
const shared = new WeakSet<object>();

/** Where in the contract a built schema comes from (its first use), for warnings. */
export function schemaPointer(schema: unknown): string | undefined {
  return schema && typeof schema === "object" ? pointers.get(schema) : undefined;
}

/**
 * A text that is equal for structurally equal schemas, also cyclic ones: shared schemas inside are
 * written as a reference to their pointer (JSON.stringify throws on a cycle).
 */
export function schemaKey(schema: unknown): string {
  const root = schema;
  return JSON.stringify(schema, function (_key, value) {
    return value !== root && isSharedSchema(value) ? { $ref: pointers.get(value) ?? "?" } : value;
  });
}

/** A schema a reference points at: it may have several parents and lie on a cycle. */
export function isSharedSchema(schema: unknown): boolean {
  return Boolean(schema && typeof schema === "object" && shared.has(schema));
}

// Schemas standing for a reference the suite could not follow, and why: the validator refuses to
// judge against them (every check that needs one says "unvalidated"), generators see any value.
const unresolved = new WeakMap<object, string>();

/** A schema for a reference that could not be followed: `problem` names its pointer and why. */
export function unresolvedSchema(problem: string): JsonSchema {
  const out = {};
  unresolved.set(out, problem);
  return out;
}

/** Why a built schema node stands for nothing (a dangling or unreadable reference), if it does. */
export function unresolvedReason(schema: unknown): string | undefined {
  return schema && typeof schema === "object" ? unresolved.get(schema) : undefined;
}

/**
 * Which side of an exchange a schema describes. OpenAPI: a readOnly property is not sent by the
 * client and its `required` applies to responses only; a writeOnly one is not returned and its
 * `required` applies to requests only. Each view drops the other side's requirement and marker, so
 * "required" and "marked readOnly/writeOnly" mean, on each side, what a client or server must do.
 */
export type SchemaView = "request" | "response";

/** Whether a built property is marked readOnly (request view) or writeOnly (response view). */
export function notOnThisSide(prop: unknown): boolean {
  if (!prop || typeof prop !== "object") return false;
  const p: any = prop;
  if (p.readOnly === true || p.writeOnly === true) return true;
  return ["allOf", "anyOf"].some((k) => Array.isArray(p[k]) && (k === "allOf" ? p[k].some(notOnThisSide) : p[k].every((b: any) => notOnThisSide(b) || b?.type === "null")));
}

/** Where `$recursiveRef: "#"` and `$dynamicRef: "#name"` lead: the component being built, or a closer anchor. */
interface Scope {
  root?: object;
  recursive?: object;
  dynamic: Map<string, object>;
}

export class SchemaBuilder {
  private readonly memo = new WeakMap<object, object>();
  /** output nodes being filled -> instance depth when they were entered */
  private readonly open = new Map<object, number>();
  private depth = 0;

  private readonly resolver: RefResolver;
  private readonly view: SchemaView | undefined;
  /** whether any schema built so far is marked readOnly or writeOnly */
  sawAccessMarker = false;

  constructor(resolver: RefResolver, view?: SchemaView) {
    this.resolver = resolver;
    this.view = view;
  }

  /** The built schema for a raw schema at `pointer`; the same raw node always gives the same object. */
  build(raw: unknown, pointer: string): JsonSchema {
    const out = this.node(raw, pointer, undefined);
    if (out && typeof out === "object" && !pointers.has(out)) pointers.set(out, pointer);
    return out as JsonSchema;
  }

  private node(raw: any, pointer: string, scope: Scope | undefined): any {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return typeof raw === "boolean" ? raw : {};
    const known = this.memo.get(raw);
    if (known) return this.reuse(known, pointer);
    if (typeof raw.$ref === "string") return this.reference(raw, pointer);
    if (typeof raw.$recursiveRef === "string" || typeof raw.$dynamicRef === "string") {
      const name = typeof raw.$dynamicRef === "string" ? raw.$dynamicRef.replace(/^#/, "") : "";
      const target = (name && scope?.dynamic.get(name)) || scope?.recursive || scope?.root;
      if (target) return this.reuse(target, pointer);
      this.resolver.warn(pointer, `${raw.$recursiveRef ?? raw.$dynamicRef} has no enclosing schema to refer to: treated as any value`);
      return {};
    }
    const out: any = {};
    this.memo.set(raw, out);
    this.fill(out, raw, pointer, scope);
    return out;
  }

  /** A node met again: shared, unless it closes a cycle that never enters a property or item. */
  private reuse(node: object, pointer: string): object {
    if (this.open.get(node) === this.depth) {
      // `A: {allOf: [{$ref: A}]}` describes no value and loops every validator and generator.
      this.resolver.warn(pointer, `reference cycle that never enters a property or item (${pointers.get(node)}): treated as any value`);
      return {};
    }
    shared.add(node);
    return node;
  }

  private reference(raw: any, pointer: string): any {
    const { node: target, pointer: targetAt, problem } = this.resolver.resolve(raw.$ref, pointer);
    if (target === undefined) return unresolvedSchema(problem ?? `${pointer}: reference ${raw.$ref} cannot be followed`);
    const siblings = Object.keys(raw).filter((k) => k !== "$ref" && !ANNOTATIONS.has(k) && !k.startsWith("x-"));
    if (!siblings.length) {
      const known = target && typeof target === "object" ? this.memo.get(target) : undefined;
      const out = known ? this.reuse(known, pointer) : this.node(target, targetAt, undefined);
      if (out && typeof out === "object") {
        shared.add(out);
        if (!pointers.has(out)) pointers.set(out, targetAt);
      }
      return out;
    }
    // `{$ref, nullable: true}` and friends. Where the siblings do not clash with the target's own
    // keywords they are merged into it (what consumers read most easily); otherwise the reference
    // becomes an `allOf` branch, which is what 3.1 says siblings mean.
    const out: any = {};
    this.memo.set(raw, out);
    const base = this.resolver.follow(target, targetAt).node;
    const own = Object.fromEntries(siblings.map((k) => [k, raw[k]]));
    const clash = base && typeof base === "object" && siblings.some((k) => k in base && k !== "nullable" && JSON.stringify(base[k]) !== JSON.stringify(raw[k]));
    const merged = clash || !base || typeof base !== "object" ? { allOf: [{ $ref: raw.$ref }], ...own } : { ...base, ...own };
    this.fill(out, merged, pointer, undefined);
    return out;
  }

  private fill(out: any, raw: any, pointer: string, outer: Scope | undefined) {
    this.open.set(out, this.depth);
    if (!pointers.has(out)) pointers.set(out, pointer);
    // A component (reached by reference or built on its own) starts a scope for `$recursiveRef`.
    let scope: Scope = outer ?? { root: out, dynamic: new Map() };
    if (raw.$recursiveAnchor === true) scope = { ...scope, recursive: out };
    if (typeof raw.$dynamicAnchor === "string") scope = { ...scope, dynamic: new Map([...scope.dynamic, [raw.$dynamicAnchor, out]]) };
    const child = (v: unknown, at: string, descends: boolean) => {
      if (descends) this.depth++;
      try {
        return this.node(v, at, scope);
      } finally {
        if (descends) this.depth--;
      }
    };
    for (const [k, v] of Object.entries<any>(raw)) {
      if (DROP.has(k) || k.startsWith("x-") || k === "$ref") continue;
      const at = `${pointer}/${escapePointer(k)}`;
      if (SCHEMA_MAPS.has(k) && v && typeof v === "object") {
        // The map itself may be a reference (`properties: {$ref: props.yml}`, as Redocly reads it).
        const { node: map, pointer: mapAt } = typeof v.$ref === "string" ? this.resolver.follow(v, at) : { node: v, pointer: at };
        out[k] = Object.fromEntries(Object.entries(map ?? {}).map(([name, s]) => [name, child(s, `${mapAt}/${escapePointer(name)}`, DESCENDS.has(k))]));
      } else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) {
        out[k] = v.map((s, i) => child(s, `${at}/${i}`, DESCENDS.has(k)));
        if ((k === "oneOf" || k === "anyOf") && raw.discriminator) noteDiscriminator(out, v, raw.discriminator);
      } else if (k === "items" && Array.isArray(v)) {
        out.prefixItems = v.map((s, i) => child(s, `${at}/${i}`, true)); // draft 4 tuple form
      } else if (SCHEMA_ONE.has(k) && v && typeof v === "object") {
        out[k] = child(v, at, DESCENDS.has(k));
      } else out[k] = v;
    }
    this.open.delete(out);
    dialect(out);
    if (raw.readOnly === true || raw.writeOnly === true) this.sawAccessMarker = true;
    if (this.view) sideOf(out, this.view);
  }
}

/**
 * A `discriminator` over `oneOf`/`anyOf` branches (decision CL11): which value of its property
 * names each branch written as a reference, the `mapping` keys that point at it, else its schema's
 * name (`#/components/schemas/Cat` -> `Cat`). Generation only (schema-arbitrary.ts draws each
 * branch with its value and the property present): servers dispatch on it, so `petType: "xY3"` in
 * the Cat branch (valid JSON Schema when the branch says only `petType: {type: string}`) is
 * refused by them. Validation is the schemas' alone (OpenAPI 3.1.1: the discriminator does not
 * change it), so a value that matches two branches is still no valid `oneOf` value.
 */
export interface DiscriminatorHint {
  property: string;
  /** per branch, the values that name it (undefined for an inline branch) */
  values: (string[] | undefined)[];
}

const discriminators = new WeakMap<object, DiscriminatorHint>();

export function discriminatorHint(schema: unknown): DiscriminatorHint | undefined {
  return schema && typeof schema === "object" ? discriminators.get(schema) : undefined;
}

function noteDiscriminator(out: object, raw: any[], discriminator: any): void {
  const property = discriminator?.propertyName;
  if (typeof property !== "string" || !property) return;
  const mapping: Record<string, unknown> = discriminator.mapping && typeof discriminator.mapping === "object" ? discriminator.mapping : {};
  const nameOf = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1).replace(/\.(ya?ml|json)$/i, "");
  const values = raw.map((branch) => {
    const ref = branch?.$ref;
    if (typeof ref !== "string") return undefined;
    const keys = Object.entries(mapping).filter(([, target]) => typeof target === "string" && (target === ref || nameOf(target) === nameOf(ref))).map(([key]) => key);
    return keys.length ? keys : [nameOf(ref)];
  });
  discriminators.set(out, { property, values });
}

/** Whether a built schema (or one of its allOf parts) already pins a property to an enum or const. */
export function fixesProperty(schema: any, prop: string, seen = new Set<object>()): boolean {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return false;
  seen.add(schema);
  const own = schema.properties?.[prop];
  if (own && typeof own === "object" && ("const" in own || Array.isArray(own.enum) || (Array.isArray(own.allOf) && own.allOf.some((p: any) => p && ("const" in p || Array.isArray(p.enum)))))) return true;
  return Array.isArray(schema.allOf) && schema.allOf.some((part: any) => fixesProperty(part, prop, seen));
}

/** The view's reading of readOnly/writeOnly, in place on a node being built (SchemaView). */
function sideOf(out: any, view: SchemaView) {
  // The other side's marker says nothing here: a readOnly property is a normal part of a response.
  delete out[view === "request" ? "writeOnly" : "readOnly"];
  if (Array.isArray(out.required) && out.properties && typeof out.properties === "object") {
    const required = out.required.filter((name: string) => !(Object.hasOwn(out.properties, name) && notOnThisSide(out.properties[name])));
    if (required.length !== out.required.length) out.required = required;
  }
}

/** 3.0 spellings (also found in 3.1 documents) -> 2020-12, in place on a node being built. */
function dialect(out: any) {
  for (const [bound, exclusive] of [["minimum", "exclusiveMinimum"], ["maximum", "exclusiveMaximum"]] as const) {
    if (out[exclusive] === true) {
      if (typeof out[bound] === "number") out[exclusive] = out[bound];
      else delete out[exclusive];
      delete out[bound];
    } else if (out[exclusive] === false) delete out[exclusive];
  }
  if (Array.isArray(out.required)) out.required = [...new Set(out.required)];
  if (out.nullable === true) {
    delete out.nullable;
    // An enum must list null too, or `{type: [string, null], enum: [a, b]}` still refuses it.
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type)) {
      if (!out.type.includes("null")) out.type = [...out.type, "null"];
    } else if (Array.isArray(out.anyOf) && !["allOf", "oneOf", "not", "const", "if"].some((k) => k in out)) {
      // Stripe's expandable fields: `{anyOf: [id, object], nullable}` is one more branch.
      out.anyOf = [...out.anyOf, { type: "null" }];
    } else if (!Array.isArray(out.enum)) {
      // No type to widen: the node itself becomes "this or null". It keeps its identity, since
      // cycles may already point at it.
      const inner = { ...out };
      for (const k of Object.keys(out)) delete out[k];
      const at = pointers.get(out);
      if (at) pointers.set(inner, at);
      out.anyOf = [inner, { type: "null" }];
    }
  } else delete out.nullable;
}

/** One raw schema normalised on its own (no document around it): for schemas built by tools and tests. */
export function normalizeSchema(schema: unknown, _is30 = false): JsonSchema {
  const resolver = { lookup: () => undefined, resolve: () => ({ node: undefined, pointer: "#" }), follow: (n: unknown) => ({ node: n, pointer: "#" }), warn: () => {} } as unknown as RefResolver;
  return new SchemaBuilder(resolver).build(schema, "#");
}
