// Validates values against any schema of the contract, addressed by JSON pointer into the
// document, so inline schemas and `$ref`s resolve exactly as a client would see them.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Doc } from "./openapi.ts";

export function pointer(...segments: string[]): string {
  return "#/" + segments.map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

/** The schema of an operation's 200 answer in JSON. */
export const okJsonSchema = (path: string, method: string): string =>
  pointer("paths", path, method, "responses", "200", "content", "application/json", "schema");

export function contractValidator(doc: Doc) {
  const ajv = new (Ajv2020 as any)({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as any)(ajv);
  ajv.addSchema(doc, "contract");
  return (schemaPointer: string, value: unknown): string[] => {
    const validate = ajv.getSchema(`contract${schemaPointer}`);
    if (!validate) throw new Error(`no schema at ${schemaPointer}`);
    return validate(value)
      ? []
      : validate.errors.map((e: Doc) => `${e.instancePath || "/"} ${e.message}`);
  };
}
