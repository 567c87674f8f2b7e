// The CheckContext the checks see: a `send` that applies auth, hooks and bookkeeping, seeded
// sample cases, keys and the resource graph.
import fc from "fast-check";
import { authFor, basicNotices, withoutCredentials } from "./auth.ts";
import { Cleanup } from "./cleanup.ts";
import { configuredErrorSchema } from "./error-schema.ts";
import { FreshValues } from "./fresh-values.ts";
import { GenerationBudgetExceeded, generationNotice } from "./generation-budget.ts";
import { positiveCaseArb } from "./case-arbitrary.ts";
import type { CheckContext, KeyProvider, SendOptions } from "./check-api.ts";
import { scopedKeyMaker, valuesFor, type ResolvedConfig } from "./config.ts";
import { applyAfter, applyBefore, type Hooks } from "./hooks.ts";
import type { HttpClient } from "./http-client.ts";
import { RunInterrupted } from "./interruption.ts";
import { ServerUnreachable } from "./load-contract.ts";
import type { Ledger } from "./ledger.ts";
import { prepareRequest } from "./request.ts";
import { buildResourceGraph } from "./resources.ts";
import { RETRIES_ON_429, retryAfterMs, sleep } from "./retry-after.ts";
import type { Case, Contract, Exchange, Operation, Phase, ResponseData } from "./types.ts";

export interface ContextDeps {
  contract: Contract;
  config: ResolvedConfig;
  baseUrl: string;
  seed: number;
  client: HttpClient;
  ledger: Ledger;
  hooks: Hooks;
  headers: Record<string, string>;
  /** called for every exchange so response checks see probe traffic too */
  observe(ex: Exchange): void;
  /** the phase the runner is in: the label of every request */
  phase(): Phase;
  /** fires on Ctrl-C/SIGTERM: nothing more is sent */
  signal?: AbortSignal;
}

export function createContext(deps: ContextDeps): CheckContext {
  const { contract, config, client, ledger } = deps;
  const byId = new Map(contract.operations.map((o) => [o.id, o]));
  const scoped = scopedKeyMaker(config);
  const keys: KeyProvider = {
    all: config.keys?.all,
    forScopes: scoped,
    revokeAll: scoped.revokeAll,
    otherProject: config.keys?.otherProject,
    lowLimit: config.keys?.lowLimit,
    invalid: config.keys?.invalid ?? "invalid_key_0000000000000000",
  };
  for (const n of basicNotices(contract, config.keys?.all, config.credentials)) ledger.notice(n);
  const fresh = new FreshValues([config.values, ...Object.values(config.operations).map((o) => o.values ?? {})]);
  const cleanup = new Cleanup();
  const ctx: CheckContext = {
    contract,
    config,
    seed: deps.seed,
    keys,
    resources: buildResourceGraph(contract),
    errorSchema: configuredErrorSchema(contract, config.errorSchema),
    operation: (id) => byId.get(id),
    sampleCase(op, salt = 0) {
      try {
        return fc.sample(positiveCaseArb(op, { overrides: valuesFor(config, op.id) }), { seed: deps.seed + salt, numRuns: 1 })[0];
      } catch (error) {
        if (error instanceof GenerationBudgetExceeded) ledger.notice(generationNotice(op.id, "sample case", error));
        return undefined; // the schema admits no value the generator can find
      }
    },
    flushCleanup: (owner = "stateful") => cleanup.flush(ctx, owner),
    notice: (text) => ledger.notice(text),
    send: (op, c, opts) => transmit(op, c, opts ?? {}) as Promise<Exchange>,
    sendNew: (op, c, seen, opts) => transmit(op, c, opts ?? {}, seen),
  };
  /** Sends the case; with `seen`, only when no identical request is in it (else resolves to undefined). */
  async function transmit(op: Operation, c0: Case, opts: SendOptions, seen?: Set<string>): Promise<Exchange | undefined> {
    const c = opts.probe || opts.cleanup ? c0 : await applyBefore(deps.hooks, op, fresh.freshen(op, c0, valuesFor(config, op.id)));
    const key = opts.key === undefined ? keys.all : opts.key;
    const auth = authFor(contract, op, { key, isDefault: opts.key === undefined, credentials: config.credentials });
    // A credential a check chose (none, an invalid, scoped or other project's key) is the only
    // one the request carries: the user's -H credentials stay out of it.
    const userHeaders = opts.key === undefined ? deps.headers : withoutCredentials(contract, deps.headers);
    const request = prepareRequest(deps.baseUrl, op, c, { ...userHeaders, ...auth.headers }, auth);
    if (opts.method) request.method = opts.method;
    if (seen) {
      // The same bytes to the same place, judged the same way: what they can show was shown.
      const fingerprint = JSON.stringify([c.mode, request.method, request.url, request.headers, request.body]);
      if (seen.has(fingerprint)) return undefined;
      seen.add(fingerprint);
    }
    if (deps.signal?.aborted) throw new RunInterrupted(deps.signal.reason);
    let response: ResponseData;
    try {
      response = await client.send(request);
      // A 429 with Retry-After is waited out and the request sent again (retry-after.ts); the
      // low-limit key's probe wants to see the 429 itself.
      for (let tries = 0; response.status === 429 && opts.keyRole !== "low-limit" && tries < RETRIES_ON_429; tries++) {
        const wait = retryAfterMs(response.headers["retry-after"]);
        if (wait === undefined || !(await sleep(wait, deps.signal))) break;
        ledger.retried++;
        ledger.requests++;
        response = await client.send(request);
      }
    } catch (error) {
      if (deps.signal?.aborted) throw new RunInterrupted(deps.signal.reason);
      // A dropped connection or a timeout on one input, while the server still answers others,
      // is the server failing on that input: not_a_server_error reports it, once, as "no
      // response"; no other check judges it (there is no status to judge, and none is made up).
      // A server that answers nothing at all is gone.
      if (!(await answers(client, deps.baseUrl))) {
        if (deps.signal?.aborted) throw new RunInterrupted(deps.signal.reason);
        throw new ServerUnreachable(`the server at ${deps.baseUrl} stopped answering (${(error as Error).message}) after ${ledger.requests} requests; ${request.method} ${request.url} got no response`);
      }
      response = { status: 0, headers: {}, text: "", isJson: false, noResponse: String((error as Error).message) };
    }
    const ex: Exchange = {
      operation: op,
      case: c,
      request,
      response,
      // The phase the runner is in, whoever sends: a check or the cleanup never names another.
      phase: deps.phase(),
      keyRole: opts.keyRole ?? (opts.key === undefined ? "default" : opts.key === null ? "none" : "scoped"),
      probe: opts.probe,
    };
    ledger.exchange(ex);
    if (!opts.probe) await applyAfter(deps.hooks, ex);
    if (!opts.silent) deps.observe(ex);
    if (!opts.cleanup) {
      const created = cleanup.created(ctx, ex);
      const owner = opts.keep ?? (ex.phase === "stateful" ? "stateful" : undefined);
      if (created && owner) cleanup.defer(created, owner);
      else if (created) await cleanup.delete(ctx, created);
    }
    return ex;
  }
  return ctx;
}

/** Whether anything answers at the base URL, any status: three tries over about a second. */
async function answers(client: HttpClient, baseUrl: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    try {
      await client.send({ method: "GET", url: baseUrl.replace(/\/+$/, "") + "/", headers: {} });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  return false;
}
