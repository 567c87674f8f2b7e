// Positive cases for one operation: every parameter and the body drawn from their schemas, with
// fixture values from the config taking the place of names the server must recognise (a bound
// zone, a connected domain). Every case is re-validated, so "positive" is a fact, not a hope.
import fc from "fast-check";
import { budgetedFilter, pointerToken } from "./generation-budget.ts";
import { asReceivedText, validBody } from "./media-types.ts";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { validate, validateParam } from "./validator.ts";
import { serializeParam } from "./request.ts";
import type { Case, Operation, Parameter } from "./types.ts";

/** The field of a Case that holds a parameter of this location. */
export function caseField(p: Parameter): "pathParams" | "query" | "headers" | "cookies" {
  return p.in === "path" ? "pathParams" : p.in === "query" ? "query" : p.in === "cookie" ? "cookies" : "headers";
}

export interface CaseOptions {
  overrides?: Record<string, unknown>;
}

function paramArb(op: Operation, p: Parameter, opts: CaseOptions): fc.Arbitrary<unknown> {
  if (opts.overrides && Object.hasOwn(opts.overrides, p.name) && validateParam(p.schema, serializeParam(opts.overrides[p.name]))) {
    return fc.constant(opts.overrides[p.name]);
  }
  let schema: any = p.schema;
  // An empty path segment changes the route, not the value: it tests the router, not the operation.
  // Also under a format the suite does not know (`iso-country-code`), which constrains nothing here.
  // An empty required header or cookie is read as absent by many stacks (Prism refused Box's
  // `digest: ` and `boxapi: ` as missing): it tests that reading, not the operation (CL10).
  if (mustNotBeEmpty(p) && typeof schema === "object" && (schema.type === "string" || !schema.type) && !schema.enum) {
    schema = { ...schema, minLength: Math.max(schema.minLength ?? 0, 1) };
  }
  return arbitraryFor(schema, { token: p.in === "header" || p.in === "path" || p.in === "cookie", pointer: `${parameterPointer(op, p)}/schema` });
}

/** Path parameters, and required header and cookie parameters: never sent empty in valid cases. */
function mustNotBeEmpty(p: Parameter): boolean {
  return p.in === "path" || (p.required && (p.in === "header" || p.in === "cookie"));
}

/** Where an operation sits in the contract, as a JSON pointer. */
export function operationPointer(op: Operation): string {
  return `#/paths/${pointerToken(op.pathKey ?? op.path)}/${op.method.toLowerCase()}`;
}

/** Parameters are named by `in` and name rather than by index: path- and operation-level ones are merged. */
export function parameterPointer(op: Operation, p: Parameter): string {
  return `${operationPointer(op)}/parameters/${pointerToken(`${p.in}:${p.name}`)}`;
}

export function bodyPointer(op: Operation): string {
  return `${operationPointer(op)}/requestBody/content/${pointerToken(op.body?.mediaType ?? "application/json")}/schema`;
}

function paramsRecord(op: Operation, where: Parameter["in"], opts: CaseOptions): fc.Arbitrary<Record<string, unknown>> {
  const params = op.parameters.filter((p) => p.in === where);
  const rec: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of params) rec[p.name] = paramArb(op, p, opts);
  return fc.record(rec, { requiredKeys: params.filter((p) => p.required).map((p) => p.name) });
}

/** Fixture values that do not fit their schema are dropped, once, rather than poisoning every case. */
export function usableOverrides(op: Operation, overrides: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!overrides || !op.body) return overrides ?? {};
  const props: Record<string, any> = (op.body.schema as any)?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(overrides)) {
    if (!Object.hasOwn(props, k) || validate(props[k], v).valid) out[k] = v;
  }
  return out;
}

// One generator per operation and fixture set: coverage, fuzzing, negative cases and the checks'
// own samples all draw from it, and building one means compiling every pattern of the operation.
const built = new WeakMap<Operation, Map<CaseOptions["overrides"], fc.Arbitrary<Case>>>();

export function positiveCaseArb(op: Operation, opts: CaseOptions = {}): fc.Arbitrary<Case> {
  let byOverrides = built.get(op);
  if (!byOverrides) built.set(op, (byOverrides = new Map()));
  let arb = byOverrides.get(opts.overrides);
  if (!arb) byOverrides.set(opts.overrides, (arb = buildPositiveCaseArb(op, opts)));
  return arb;
}

function buildPositiveCaseArb(op: Operation, opts: CaseOptions): fc.Arbitrary<Case> {
  const overrides = usableOverrides(op, opts.overrides);
  const body = op.body ? arbitraryFor(op.body.schema, { overrides, pointer: bodyPointer(op) }) : fc.constant(undefined);
  const cases = fc
    .record({
      pathParams: paramsRecord(op, "path", { overrides }),
      query: paramsRecord(op, "query", { overrides }),
      headers: paramsRecord(op, "header", { overrides }),
      // Only where the operation declares cookies: another record field would change every draw
      // (and so every seed's cases) of the operations without any.
      ...(op.parameters.some((p) => p.in === "cookie") ? { cookies: paramsRecord(op, "cookie", { overrides }) } : {}),
      body,
    })
    .map((parts) => ({ operationId: op.id, ...parts, hasBody: Boolean(op.body), mode: "positive" as const }));
  // Re-validation within the generation budget: a part the generators cannot satisfy is named.
  return budgetedFilter(cases, (c) => caseIsValid(op, c), (c) => caseProblem(op, c) ?? operationPointer(op));
}

/** True when a server that implements the contract exactly must accept the case's inputs. */
export function caseIsValid(op: Operation, c: Case): boolean {
  return caseProblem(op, c) === undefined;
}

/** The pointer of the first part of the case that breaks the contract, if any. */
export function caseProblem(op: Operation, c: Case): string | undefined {
  for (const p of op.parameters) {
    const bag = c[caseField(p)] ?? {};
    const present = p.name in bag && bag[p.name] !== undefined;
    if (!present) {
      if (p.required) return parameterPointer(op, p);
      continue;
    }
    const raw = bag[p.name];
    // A `content` parameter reaches the server as JSON text, which it parses back to the value.
    if (p.contentType) {
      if (!(/json/i.test(p.contentType) ? validate(p.schema, raw).valid : validateParam(p.schema, serializeParam(raw)))) return `${parameterPointer(op, p)}/schema`;
      continue;
    }
    // An object (deepObject or exploded form) reaches the server as an object of texts.
    const text = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (asReceivedText(raw) as string) : serializeParam(raw);
    // A path segment is never empty: `/Accounts//Calls` is another route, whatever the schema says;
    // nor is a required header or cookie (read as absent by many stacks).
    if (mustNotBeEmpty(p) && (text === "" || (Array.isArray(text) && text.join("") === ""))) return `${parameterPointer(op, p)}/schema`;
    if (!validateParam(p.schema, text)) return `${parameterPointer(op, p)}/schema`;
  }
  if (op.body) {
    if (!c.hasBody) return op.body.required ? bodyPointer(op) : undefined;
    const verdict = validBody(op.body.mediaType, op.body.schema, c.body);
    if (!verdict.valid) return `${bodyPointer(op)} (value ${verdict.errors[0] ?? ""})`;
  }
  return undefined;
}
