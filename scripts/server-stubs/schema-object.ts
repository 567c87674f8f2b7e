// Turns the contract's schemas into what ajv (2020-12) and fast-json-stringify accept at run time:
// component references point into one shared schema, and OpenAPI 3.0's `nullable` becomes a type union.

/** The $id under which all component schemas are registered in the generated code. */
export const componentsId = "components.json";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function normalizeSchema(schema: unknown, openapi30: boolean): Json {
  if (Array.isArray(schema)) return schema.map((item) => normalizeSchema(item, openapi30));
  if (schema === null || typeof schema !== "object") return schema as Json;
  const source = schema as Record<string, unknown>;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "$ref" && typeof value === "string") {
      out.$ref = rewriteRef(value);
    } else if (key === "nullable" && openapi30) {
      continue;
    } else if (key === "discriminator") {
      // ajv's discriminator picks the oneOf branch by the tag, so errors name that branch's
      // fields instead of every branch's; it reads propertyName and refuses `mapping`, whose keys
      // stay as `x-values` for the error message.
      const { propertyName, mapping } = value as { propertyName: string; mapping?: Record<string, string> };
      out.discriminator = mapping ? { propertyName, "x-values": Object.keys(mapping) } : { propertyName };
    } else if (key === "example" || key === "examples" || key === "xml" || key === "externalDocs") {
      // Annotations only; dropping them keeps the generated tables small and ajv strictness moot.
      continue;
    } else if (key === "properties" || key === "patternProperties" || key === "$defs" || key === "definitions") {
      out[key] = mapValues(value as Record<string, unknown>, (v) => normalizeSchema(v, openapi30));
    } else {
      out[key] = normalizeSchema(value, openapi30);
    }
  }
  if (openapi30 && source.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (out.enum && Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

function mapValues(obj: Record<string, unknown>, fn: (v: unknown) => Json): Json {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = fn(v);
  return out;
}

function rewriteRef(ref: string): string {
  const prefix = "#/components/schemas/";
  if (ref.startsWith(prefix)) return `${componentsId}#/$defs/${ref.slice(prefix.length)}`;
  return ref;
}

/** All component schemas as one schema document with `$defs`, the target of every rewritten $ref. */
export function componentsSchema(doc: { components?: { schemas?: Record<string, unknown> } }, openapi30: boolean): Json {
  const defs = doc.components?.schemas ?? {};
  return { $id: componentsId, $defs: mapValues(defs, (v) => normalizeSchema(v, openapi30)) };
}
