// Building blocks of the stateful phase: create a resource (creating its parents first), then
// address it through the links of the contract.
import type { CheckContext, SendOptions } from "./check-api.ts";
import { evaluateExpression, type LinkEnv, type Resource, type Target } from "./resources.ts";
import type { Case, Exchange, Operation } from "./types.ts";

export interface Created {
  exchange: Exchange;
  env: LinkEnv;
}

const ok = (ex: Exchange) => ex.response.status >= 200 && ex.response.status < 300;

export async function caseWithParents(ctx: CheckContext, op: Operation, salt: number, depth = 0): Promise<Case | undefined> {
  const c = ctx.sampleCase(op, salt);
  if (!c) return undefined;
  for (const p of op.parameters.filter((p) => p.in === "path")) {
    const parent = ctx.resources.parentFor(op, p.name);
    if (!parent || depth > 2) continue;
    const created = await createResource(ctx, parent, {}, depth + 1);
    if (!created) return undefined;
    const target = parent.readers[0] ?? parent.deleters[0];
    const expr = target?.parameters[p.name] ?? "$response.body#/id";
    c.pathParams = { ...c.pathParams, [p.name]: evaluateExpression(expr, created.env) };
  }
  return c;
}

/**
 * Values for an operation's path parameters that name resources a creator makes (a mailbox id for
 * /mailboxes/{id}/shared): one live resource per parameter, created now and kept for `keep`, so
 * generated cases reach the operation's success path instead of only its 404.
 */
export async function liveParentValues(ctx: CheckContext, op: Operation, keep: string, skip: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of op.parameters.filter((p) => p.in === "path" && !(p.name in skip))) {
    const parent = ctx.resources.parentFor(op, p.name);
    if (!parent) continue;
    const created = await createResource(ctx, parent, { keep });
    if (!created) continue;
    const target = parent.readers[0] ?? parent.deleters[0];
    const value = evaluateExpression(target?.parameters[p.name] ?? "$response.body#/id", created.env);
    if (value !== undefined) out[p.name] = value;
  }
  return out;
}

/** Tries a few seeded cases until the creator answers 2xx; undefined when it never does. */
export async function createResource(ctx: CheckContext, res: Resource, opts: SendOptions = {}, depth = 0): Promise<Created | undefined> {
  for (let salt = 0; salt < 3; salt++) {
    const c = await caseWithParents(ctx, res.creator, 1000 + salt, depth);
    if (!c) continue;
    const exchange = await ctx.send(res.creator, c, { ...opts });
    if (!ok(exchange)) continue;
    return {
      exchange,
      env: {
        requestPath: c.pathParams,
        requestQuery: c.query,
        requestBody: c.body,
        responseBody: exchange.response.json,
        responseHeaders: exchange.response.headers,
      },
    };
  }
  return undefined;
}

/** A case for a linked operation, with the linked parameters taken from the creating exchange. */
export function linkedCase(ctx: CheckContext, target: Target, env: LinkEnv): Case | undefined {
  const c = ctx.sampleCase(target.operation, 2000);
  if (!c) return undefined;
  const next: Case = { ...c, pathParams: { ...c.pathParams }, query: { ...c.query } };
  for (const [name, expr] of Object.entries(target.parameters)) {
    const value = evaluateExpression(expr, env);
    if (value === undefined) return undefined;
    const where = target.operation.parameters.find((p) => p.name === name)?.in ?? "path";
    if (where === "path") next.pathParams[name] = value;
    else if (where === "query") next.query[name] = value;
  }
  return next;
}

/** The id of the created resource as the first reader or deleter addresses it. */
export function createdId(res: Resource, env: LinkEnv): unknown {
  const target = res.readers[0] ?? res.deleters[0];
  if (!target) return undefined;
  const exprs = Object.values(target.parameters).filter((e) => String(e).startsWith("$response.body"));
  return exprs.length ? evaluateExpression(exprs[0], env) : undefined;
}

/** Whether a list response mentions the id anywhere in an array of objects. */
export function listMentions(body: unknown, id: unknown): boolean {
  if (!body || typeof body !== "object") return false;
  for (const value of Object.values(body)) {
    if (Array.isArray(value) && value.some((item) => item && typeof item === "object" && Object.values(item).some((v) => v === id))) return true;
  }
  return false;
}

/**
 * A case for looking something up in a list: only the required query parameters. A sampled case
 * may carry an optional filter or cursor (`status=`, `before=`) that leaves the item looked for
 * off the answer, and a check would then report a correct server.
 */
export function requiredQueryOnly(op: Operation, c: Case): Case {
  const required = new Set(op.parameters.filter((p) => p.in === "query" && p.required).map((p) => p.name));
  return { ...c, query: Object.fromEntries(Object.entries(c.query).filter(([name]) => required.has(name))) };
}

export function isPaginated(op: Operation): boolean {
  return op.parameters.some((p) => p.in === "query" && /^(limit|offset|page|cursor|per_page|pageSize)$/i.test(p.name));
}

/** A DELETE that is a state change (cancel keeps a message readable): a `status` in its answer, or `softDelete` in the config. */
export function isSoftDelete(op: Operation, configured: boolean | undefined): boolean {
  if (configured !== undefined) return configured;
  const ok = op.responses.find((r) => r.status.startsWith("2"));
  const schema: any = ok && Object.values(ok.content)[0]?.schema;
  return Boolean(schema?.properties?.status);
}
