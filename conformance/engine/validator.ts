// One place that decides what "valid" means. Generated cases are re-validated here before they are
// called positive or negative, so a generator bug cannot turn into a false failure of the server.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchema } from "./types.ts";

const addFormats = (addFormatsModule as any).default ?? addFormatsModule;

// Formats a contract may use that the suite does not know are not checked; ajv would print a
// line for every schema that uses one (700 a run on GitHub's contract), so each is noted once and
// the CLI reports them together.
const unknown = new Set<string>();
const logger = {
  log: () => {},
  warn: (...args: unknown[]) => {
    const m = /unknown format "([^"]+)"/.exec(args.map(String).join(" "));
    if (m) unknown.add(m[1]);
    else console.warn(...args);
  },
  error: (...args: unknown[]) => console.error(...args),
};

/** Formats seen in schemas that are not checked, each once. */
export function unknownFormats(): string[] {
  return [...unknown].sort();
}

const INT32 = 2 ** 31;

function makeAjv(coerce: boolean) {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    validateFormats: true,
    coerceTypes: coerce ? "array" : false,
    logger,
  });
  addFormats(ajv);
  // The formats OpenAPI itself defines (3.0 section 4.7.9; 3.1 keeps them).
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32 });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat("float", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("byte", /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat("binary", true);
  ajv.addFormat("password", true);
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
