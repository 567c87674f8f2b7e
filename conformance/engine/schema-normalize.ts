// OpenAPI 3.0 schemas are a dialect of JSON Schema draft 4; the engine validates everything with
// draft 2020-12, so the 3.0 spellings are rewritten once: `nullable`, boolean exclusive bounds
// and `example`. 3.1 schemas only lose keywords that are documentation.
export function normalizeSchema(schema: any, is30: boolean): any {
  if (Array.isArray(schema)) return schema.map((s) => normalizeSchema(s, is30));
  if (!schema || typeof schema !== "object") return schema;
  const out: any = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "example" || k === "xml" || k === "externalDocs" || k === "discriminator") continue;
    if (k === "properties" || k === "patternProperties" || k === "$defs" || k === "definitions") {
      out[k] = Object.fromEntries(Object.entries(v as object).map(([n, s]) => [n, normalizeSchema(s, is30)]));
    } else if (v && typeof v === "object") {
      out[k] = normalizeSchema(v, is30);
    } else out[k] = v;
  }
  if (is30) {
    if (out.exclusiveMinimum === true) {
      out.exclusiveMinimum = out.minimum;
      delete out.minimum;
    }
    else if (out.exclusiveMinimum === false) delete out.exclusiveMinimum;
    if (out.exclusiveMaximum === true) {
      out.exclusiveMaximum = out.maximum;
      delete out.maximum;
    }
    else if (out.exclusiveMaximum === false) delete out.exclusiveMaximum;
    if (out.nullable === true) {
      delete out.nullable;
      if (typeof out.type === "string") out.type = [out.type, "null"];
      else if (out.enum) out.enum = [...out.enum, null];
      else return { anyOf: [out, { type: "null" }] };
    } else delete out.nullable;
  }
  return out;
}
