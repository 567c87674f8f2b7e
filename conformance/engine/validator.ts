// One place that decides what "valid" means. Generated cases are re-validated here before they are
// called positive or negative, so a generator bug cannot turn into a false failure of the server.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { isSharedSchema, schemaPointer, unresolvedReason } from "./schema-normalize.ts";
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

/**
 * Every format this validator checks, with the JSON type it applies to: the generators must draw
 * values of each that pass here (formats.test.ts), or a positive case with such a field can never
 * be built and a fixture can never answer with one.
 */
export function knownFormats(): { name: string; type: "string" | "number" }[] {
  const formats = makeAjv(false).formats as Record<string, unknown>;
  return Object.entries(formats).map(([name, f]) => ({ name, type: (f as { type?: string })?.type === "number" ? "number" : "string" }));
}

/**
 * Patterns are ECMA-262 with the `u` flag, as ajv compiles them, and without it when that refuses
 * them: contracts written for other engines escape characters that need no escape (`\\-`, `\\_`),
 * which only `u` mode rejects, and a pattern the suite can read is better checked than dropped.
 */
function tolerantRegExp(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    if (!flags.includes("u")) throw error;
    return new RegExp(pattern, flags.replace("u", ""));
  }
}

function makeAjv(coerce: boolean) {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    validateFormats: true,
    coerceTypes: coerce ? "array" : false,
    logger,
    code: { regExp: tolerantRegExp as any },
  });
  addFormats(ajv);
  // The formats OpenAPI itself defines (3.0 section 4.7.9; 3.1 keeps them).
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32 });
  // 2^63 - 1 parses to 2^63 as a double: a response holding the int64 maximum must still pass, so
  // the bound is inclusive of what the maximum rounds to; 2^64 and beyond are out.
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 63) && n <= 2 ** 63 });
  ajv.addFormat("float", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("byte", /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat("binary", true);
  ajv.addFormat("password", true);
  // Common formats of the OpenAPI Format Registry and of public contracts (Stripe's `unix-time`
  // and `decimal`, OpenAI's `unixtime`), so they are checked, not reported as unknown.
  for (const [name, bits, signed] of [["int8", 8, true], ["int16", 16, true], ["uint8", 8, false], ["uint16", 16, false], ["uint32", 32, false], ["uint64", 64, false]] as const) {
    const min = signed ? -(2 ** (bits - 1)) : 0;
    const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
    ajv.addFormat(name, { type: "number", validate: (n: number) => Number.isInteger(n) && n >= min && n <= max });
  }
  for (const name of ["unix-time", "unixtime"]) ajv.addFormat(name, { type: "number", validate: (n: number) => Number.isFinite(n) });
  for (const name of ["decimal", "decimal128"]) ajv.addFormat(name, /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/);
  ajv.addFormat("char", { type: "string", validate: (v: string) => [...v].length === 1 });
  ajv.addFormat("base64url", /^[A-Za-z0-9_-]*={0,2}$/);
  ajv.addFormat("http-date", { type: "string", validate: (v: string) => !Number.isNaN(Date.parse(v)) });
  ajv.addFormat("date-time-local", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?$/);
  ajv.addFormat("time-local", /^\d{2}:\d{2}:\d{2}(?:\.\d+)?$/);
  ajv.addFormat("idn-email", /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat("idn-hostname", /^[^\s./]+(?:\.[^\s./]+)*\.?$/u);
  ajv.addFormat("iri", /^[a-z][a-z0-9+.-]*:[^\s]*$/i);
  ajv.addFormat("iri-reference", /^[^\s]*$/);
  for (const name of ["commonmark", "html", "media-range", "sf-string", "sf-token"]) ajv.addFormat(name, true);
  return ajv;
}

/** Keywords whose values are data: copied as they are, never searched for subschemas. */
const DATA = new Set(["enum", "const", "default", "examples"]);

/**
 * One ajv instance and the shared schemas registered with it. A shared schema (a component used in
 * several places, or on a cycle) is handed to ajv once, under its own id, and every use becomes a
 * `$ref` to it: ajv then compiles it once, and a cyclic graph becomes recursive references, where
 * inlining would loop forever or, on Stripe's contract, produce code for 4e8 nodes.
 */
class Compiler {
  readonly ajv;
  private readonly ids = new WeakMap<object, string>();
  /** registered ids ajv refused to add (the schema breaks the meta-schema): the reason */
  private readonly broken = new Map<string, string>();
  private next = 0;
  /** references the loader could not follow, as ajv sees them (a `$ref` it cannot resolve): why */
  private readonly dangling = new Map<string, string>();

  constructor(coerce: boolean) {
    this.ajv = makeAjv(coerce);
  }

  /** The schema as ajv takes it: a tree, shared nodes replaced by references to registered ones. */
  portable(schema: object, refs?: Map<string, object>): object {
    const convert = (node: any, root: boolean): any => {
      if (!node || typeof node !== "object") return node;
      const why = unresolvedReason(node);
      if (why !== undefined) {
        // ajv refuses to compile a reference it cannot resolve, and so every schema that uses it.
        const id = `urn:platform-unresolved:${this.dangling.size}`;
        this.dangling.set(id, why);
        return { $ref: id };
      }
      if (!root && isSharedSchema(node)) {
        const id = this.register(node);
        refs?.set(id, node);
        return { $ref: id };
      }
      if (Array.isArray(node)) return node.map((n) => convert(n, false));
      const out: any = {};
      for (const [k, v] of Object.entries(node)) out[k] = DATA.has(k) ? v : convert(v, false);
      return out;
    };
    return convert(schema, true);
  }

  private register(node: object): string {
    let id = this.ids.get(node);
    if (id) return id;
    id = `https://schemas.invalid/${this.next++}`;
    this.ids.set(node, id); // before converting: a cycle through this node ends at the id
    const body = this.portable(node);
    try {
      this.ajv.addSchema(body, id);
    } catch (error) {
      // Every schema that refers to it then fails to compile ("can't resolve reference"): none
      // passes silently, and blame() names this one.
      this.broken.set(id, (error as Error).message);
    }
    return id;
  }

  compile(schema: object): { fn: any; problem?: string; unresolved?: boolean } {
    const refs = new Map<string, object>();
    try {
      return { fn: this.ajv.compile(this.portable(schema, refs)) };
    } catch (error) {
      const fn = Object.assign(() => true, { errors: null });
      const missing = String((error as { missingRef?: string }).missingRef ?? "").replace(/#$/, "");
      if (this.dangling.has(missing)) return { fn, problem: this.dangling.get(missing), unresolved: true };
      return { fn, problem: this.blame(schema, refs, error as Error) };
    }
  }

  /**
   * Which schema ajv refused, by JSON pointer: the referenced schemas that fail on their own and
   * whose own references do not (the culprit, not everything that uses it), else the schema itself.
   */
  private blame(schema: object, direct: Map<string, object>, error: Error): string {
    const failing = new Map<string, { pointer: string; message: string; refs: Map<string, object> }>();
    const seen = new Set<string>();
    const queue = [...direct];
    while (queue.length) {
      const [id, node] = queue.shift()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const refs = new Map<string, object>();
      this.portable(node, refs);
      queue.push(...refs);
      let message = this.broken.get(id);
      try {
        if (!message) this.ajv.getSchema(id);
      } catch (e) {
        message = (e as Error).message;
      }
      if (message) failing.set(id, { pointer: schemaPointer(node) ?? id, message, refs });
    }
    const culprits = [...failing.values()].filter((f) => ![...f.refs.keys()].some((id) => failing.has(id)));
    const named = culprits.length ? culprits : [...failing.values()];
    if (!named.length) return `${pointerWithin(schema) ?? "a schema"}: ${error.message}`;
    return named.map((f) => `${f.pointer}: ${f.message}`).join("; ");
  }
}

/** The pointer of the schema, or of the first schema inside it that has one (a parameter's, in its wrapper). */
function pointerWithin(schema: object): string | undefined {
  const queue: unknown[] = [schema];
  for (let i = 0; i < queue.length && i < 1000; i++) {
    const node = queue[i];
    if (!node || typeof node !== "object") continue;
    const at = schemaPointer(node);
    if (at) return at;
    for (const [k, v] of Object.entries(node)) if (!DATA.has(k)) queue.push(v);
  }
  return undefined;
}

const strict = new Compiler(false);
const coercing = new Compiler(true);
const cacheStrict = new WeakMap<object, { fn: any; problem?: string; unresolved?: boolean }>();
const cacheCoerce = new WeakMap<object, { fn: any; problem?: string; unresolved?: boolean }>();
const paramWrappers = new WeakMap<object, object>();

// Schemas ajv refused, each named once by pointer; the CLI prints them and the reports list them.
const refused = new Map<string, string>();

/** Schemas that could not be compiled: pointer and ajv's reason. Nothing was validated against them. */
export function unvalidatedSchemas(): { pointer: string; message: string }[] {
  return [...refused].map(([pointer, message]) => ({ pointer, message }));
}

function compile(schema: JsonSchema, coerce: boolean): { fn: any; problem?: string } {
  if (typeof schema === "boolean") return { fn: () => schema };
  const cache = coerce ? cacheCoerce : cacheStrict;
  let entry = cache.get(schema);
  if (!entry) {
    entry = (coerce ? coercing : strict).compile(schema);
    // A reference that could not be followed is already a contract warning (load-contract.ts).
    if (entry.problem && !entry.unresolved) for (const part of entry.problem.split("; ")) refused.set(part.slice(0, part.indexOf(": ")), part.slice(part.indexOf(": ") + 2));
    cache.set(schema, entry);
  }
  return entry;
}

export interface Verdict {
  valid: boolean;
  errors: string[];
  /**
   * Set when the schema cannot be compiled: nothing was checked and `valid` is true only so that
   * generators keep going. A check must not call such a verdict a pass (it reports "unvalidated").
   */
  unvalidated?: string;
}

/** Validates a JSON value as it would be received in a body. */
export function validate(schema: JsonSchema | undefined, value: unknown): Verdict {
  if (schema === undefined) return { valid: true, errors: [] };
  const { fn, problem } = compile(schema, false);
  if (problem) return { valid: true, errors: [], unvalidated: problem };
  const valid = Boolean(fn(value));
  return { valid, errors: valid ? [] : formatErrors(fn.errors) };
}

/** Why a schema cannot be validated against, or undefined when it can. */
export function unvalidatedReason(schema: JsonSchema | undefined): string | undefined {
  return schema === undefined ? undefined : compile(schema, false).problem;
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
  const { fn } = compile(wrapper, true);
  return Boolean(fn({ v: serialized }));
}

/** Why a parameter or header schema cannot be validated against, or undefined when it can. */
export function unvalidatedParamReason(schema: JsonSchema | undefined): string | undefined {
  if (schema === undefined || typeof schema === "boolean") return undefined;
  let wrapper = paramWrappers.get(schema as object);
  if (!wrapper) paramWrappers.set(schema as object, (wrapper = { type: "object", properties: { v: schema } }));
  return compile(wrapper, true).problem;
}

function formatErrors(errors: any[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}${e.params?.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : ""}`);
}
