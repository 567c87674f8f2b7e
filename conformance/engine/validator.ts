// One place that decides what "valid" means. Generated cases are re-validated here before they are
// called positive or negative, so a generator bug cannot turn into a false failure of the server.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchema } from "./types.ts";

const addFormats = (addFormatsModule as any).default ?? addFormatsModule;

function makeAjv(coerce: boolean) {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    validateFormats: true,
    coerceTypes: coerce ? "array" : false,
  });
  addFormats(ajv);
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);
const cacheStrict = new WeakMap<object, any>();
const cacheCoerce = new WeakMap<object, any>();
const paramWrappers = new WeakMap<object, object>();

function compile(schema: JsonSchema, coerce: boolean) {
  if (typeof schema === "boolean") return (() => schema) as any;
  const cache = coerce ? cacheCoerce : cacheStrict;
  let fn = cache.get(schema);
  if (!fn) {
    try {
      fn = (coerce ? coercing : strict).compile(schema);
    } catch {
      // A schema ajv cannot compile (unknown format, bad regex) validates nothing rather than
      // crashing the run; the contract linter is the place to report it.
      fn = Object.assign(() => true, { errors: null });
    }
    cache.set(schema, fn);
  }
  return fn;
}

export interface Verdict {
  valid: boolean;
  errors: string[];
}

/** Validates a JSON value as it would be received in a body. */
export function validate(schema: JsonSchema | undefined, value: unknown): Verdict {
  if (schema === undefined) return { valid: true, errors: [] };
  const fn = compile(schema, false);
  const valid = Boolean(fn(value));
  return { valid, errors: valid ? [] : formatErrors(fn.errors) };
}

/**
 * Validates a parameter the way a server sees it: as text (or a list of texts) that it coerces to
 * the schema's type. `"12"` is a valid integer query value; `"1.5"` is not.
 */
export function validateParam(schema: JsonSchema, serialized: string | string[] | undefined): boolean {
  if (serialized === undefined) return true;
  if (typeof schema === "boolean") return schema;
  let wrapper = paramWrappers.get(schema as object);
  if (!wrapper) paramWrappers.set(schema as object, (wrapper = { type: "object", properties: { v: schema } }));
  const fn = compile(wrapper, true);
  return Boolean(fn({ v: serialized }));
}

function formatErrors(errors: any[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}${e.params?.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : ""}`);
}
