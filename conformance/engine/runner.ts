// Orchestrates a run: selects operations and checks, then walks Schemathesis' phases
// (examples, coverage, fuzzing, stateful) over a worker pool, feeding every exchange to the
// response checks and recording outcomes in the ledger.
import { oversizedParametersNotice } from "./line-limits.ts";
import { allChecks } from "../checks/index.ts";
import { caseField, caseIsValid, positiveCaseArb } from "./case-arbitrary.ts";
import { isUnvalidated, type Check, type CheckContext } from "./check-api.ts";
import { unknownFormats, unvalidatedSchemas } from "./validator.ts";
import fc from "fast-check";
import { loadConfig, valuesFor, type ConformanceConfig } from "./config.ts";
import { createContext } from "./context.ts";
import { webhookEntry } from "./webhook-entry.ts";
import { coverageCases } from "./coverage.ts";
import { fuzzOperation } from "./fuzz.ts";
import { GenerationBudgetExceeded, generationNotice } from "./generation-budget.ts";
import { liveParentValues } from "./stateful.ts";
import { loadHooks } from "./hooks.ts";
import { createHttpClient } from "./http-client.ts";
import { Ledger } from "./ledger.ts";
import { bodyKind } from "./media-types.ts";
import { ContractError, loadContract } from "./load-contract.ts";
import { negativeCaseArb } from "./mutations.ts";
import { pinnedHeaders } from "./request.ts";
import { selectOperations, type Filters } from "./select.ts";
import { createThrottle, runPool } from "./throttle.ts";
import { reasonText, RunInterrupted } from "./interruption.ts";
import type { Case, Contract, Exchange, Failure, Finding, JsonSchema, Mode, Operation, Phase } from "./types.ts";

export const ALL_PHASES: Phase[] = ["examples", "coverage", "fuzzing", "stateful"];

export interface RunOptions extends Filters {
  spec: string;
  baseUrl: string;
  config?: string | ConformanceConfig;
  checks?: string[];
  excludeChecks?: string[];
  phases?: Phase[];
  mode?: Mode;
  maxExamples?: number;
  seed?: number;
  maxFailures?: number;
  headers?: Record<string, string>;
  rateLimit?: string;
  workers?: number;
  /** an operation that never reached a documented 2xx is a failure, not a warning */
  strictCoverage?: boolean;
  onProgress?(phase: Phase, done: number, total: number): void;
  /** called once the contract is loaded and the run starts: progress reporters read the ledger */
  onStart?(ledger: Ledger): void;
  /**
   * Ctrl-C/SIGTERM: once it fires nothing more is sent (requests in flight are aborted) and
   * `run` returns what ran so far with `interrupted` set, instead of throwing.
   */
  signal?: AbortSignal;
  /** per request; default 10 s */
  requestTimeoutMs?: number;
}

export interface RunResult {
  contract: Contract;
  ledger: Ledger;
  seed: number;
  durationMs: number;
  checks: string[];
  operations: Operation[];
  /** the phases that ran, completely or (when interrupted) in part */
  phases: Phase[];
  /** why the run stopped early ("SIGINT", "SIGTERM"); the ledger holds what ran before */
  interrupted?: string;
  /** the config's errorSchema as written (replay judges error bodies by it again) */
  errorSchema?: JsonSchema;
  /** set when no (operation, check) pair was judged: such a run is not a pass, and this says why */
  nothingChecked?: string;
}

export function selectChecks(names: string[] | undefined, exclude: string[] | undefined): Check[] {
  const known = new Map(allChecks.map((c) => [c.name, c]));
  for (const n of [...(names ?? []), ...(exclude ?? [])]) {
    if (n !== "all" && !known.has(n)) throw new ContractError(`unknown check "${n}"; known: ${[...known.keys()].join(", ")}`);
  }
  const chosen = !names?.length ? allChecks.filter((c) => !c.optIn) : names.includes("all") ? allChecks : allChecks.filter((c) => names.includes(c.name));
  return chosen.filter((c) => !exclude?.includes(c.name));
}

export async function run(opts: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const config = await loadConfig(opts.config);
  const contract = await loadContract(opts.spec, config.scopeExtension);
  const checks = selectChecks(opts.checks, opts.excludeChecks);
  const selected = selectOperations(contract.operations, opts).filter((o) => !config.operations[o.id]?.skip);
  // A body the suite cannot write (application/xml, image/png...) would only produce noise: the
  // operation is skipped, with one warning naming it and the media type.
  const unwritable = selected.filter((o) => o.body && !bodyKind(o.body.mediaType));
  const operations = selected.filter((o) => !unwritable.includes(o)).map((o) => pinnedHeaders(o, { ...config.headers, ...opts.headers }));
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const phases = opts.phases ?? ALL_PHASES;
  const mode = opts.mode ?? "all";
  const maxExamples = opts.maxExamples ?? 100;
  // Skipped operations stay in the ledger: the coverage table and success_coverage say they got no request.
  const ledger = new Ledger([...operations, ...unwritable]);
  for (const o of unwritable) ledger.notice(`${o.id}: skipped, the suite cannot produce a ${o.body!.mediaType} request body`);
  const client = createHttpClient({ throttle: opts.rateLimit ? createThrottle(opts.rateLimit) : undefined, signal: opts.signal, timeoutMs: opts.requestTimeoutMs });
  const hooks = await loadHooks(config.hooks, config.dir);
  const responseChecks = checks.filter((c) => c.response);
  const stop = () => Boolean(opts.signal?.aborted) || (opts.maxFailures !== undefined && ledger.failures.length >= opts.maxFailures);
  opts.onStart?.(ledger);
  // Requests are labelled with the phase they were sent in, also those a check or the cleanup
  // sends without naming one: a failure never names a phase that did not run.
  let currentPhase: Phase = phases[0] ?? "examples";
  const phasesRun: Phase[] = [];
  let interrupted: string | undefined;

  // judge closes over ctx, and createContext needs judge: ctx is assigned once, below.
  // eslint-disable-next-line prefer-const
  let ctx: CheckContext;
  const judge = (ex: Exchange, only?: string): Map<string, Finding[]> => {
    const out = new Map<string, Finding[]>();
    for (const check of responseChecks) {
      if (only && check.name !== only) continue;
      // No response, no status: only not_a_server_error has something to say (it says it once).
      if (ex.response.noResponse !== undefined && check.name !== "not_a_server_error") continue;
      const findings = check.response!(ctx, ex);
      if (findings === null) continue;
      if (isUnvalidated(findings)) {
        if (!only) ledger.unvalidate(ex.operation.id, check.name, findings.unvalidated);
        continue;
      }
      if (!only) ledger.outcome(ex.operation.id, check.name, findings.length === 0);
      if (findings.length) out.set(check.name, findings);
    }
    return out;
  };
  const report = (check: string, ex: Exchange, findings: Finding[]) => {
    const c = checks.find((x) => x.name === check)!;
    const f = findings[0];
    // A probe's verdict on a request that got no response would be a made-up status: the request
    // is already reported by not_a_server_error.
    if (check !== "not_a_server_error" && ledger.unanswered.has(f.request ?? ex.request)) return;
    const record = c.strictOnly && !opts.strictCoverage ? (w: Failure) => void ledger.warnings.push(w) : (w: Failure) => ledger.failure(w);
    record({
      check,
      title: f.title ?? c.title,
      severity: c.severity,
      operation: ex.operation.id,
      message: f.message,
      expected: f.expected,
      got: f.got,
      request: f.request ?? ex.request,
      status: f.status ?? ex.response.status,
      phase: ex.phase,
      seed,
      mode: ex.case.mode,
      keyRole: ex.keyRole,
      probe: ex.probe,
    });
  };
  ctx = createContext({
    contract, config, baseUrl: opts.baseUrl, seed, client, ledger, hooks, headers: { ...config.headers, ...opts.headers },
    observe(ex) {
      for (const [check, findings] of judge(ex)) report(check, ex, findings);
    },
    phase: () => currentPhase,
    signal: opts.signal,
  });

  const runProbes = async (phase: Phase, op: Operation) => {
    for (const check of checks) {
      if (!check.probe || (check.phase ?? "coverage") !== phase || stop()) continue;
      const findings = await check.probe(ctx, op);
      if (findings === null) continue;
      if (isUnvalidated(findings)) {
        ledger.unvalidate(op.id, check.name, findings.unvalidated);
        continue;
      }
      if (!findings.length) ledger.outcome(op.id, check.name, true);
      for (const f of findings) report(check.name, fakeExchange(op, phase), [f]);
    }
  };
  // Requests already sent per operation in the phases that draw cases (examples, coverage,
  // fuzzing): an identical one again tests nothing new. Half the fuzzing draws of this platform's
  // contract were such repeats (an operation whose only input is a fixture id draws one request).
  const sent = new Map<string, Set<string>>();
  const seenFor = (op: Operation) => sent.get(op.id) ?? sent.set(op.id, new Set()).get(op.id)!;
  const sendAll = async (op: Operation, cases: Case[]) => {
    for (const c of cases) if (!stop()) await ctx.sendNew(op, c, seenFor(op));
  };
  const workers = opts.workers ?? 2;

  // The phases in order; Ctrl-C/SIGTERM ends them with RunInterrupted (from `send`).
  const runPhases = async () => {
    for (const phase of phases) {
      if (opts.signal?.aborted) throw new RunInterrupted(opts.signal.reason);
      currentPhase = phase;
      phasesRun.push(phase);
      let done = 0;
      opts.onProgress?.(phase, 0, operations.length);
      await runPool(slowestFirst(operations, phase, ledger), workers, async (op) => {
        if (stop()) return;
        // Path parameters that name created resources get a live one, so cases reach the success
        // path; it is deleted again when the operation's phase is done.
        const keep = `parents:${phase}:${op.id}`;
        const base = valuesFor(config, op.id);
        const live = phase === "stateful" ? {} : await liveParentValues(ctx, op, keep, base);
        const overrides = Object.keys(live).length ? { ...base, ...live } : base;
        // A value the generators cannot produce within the budget skips that part, with a
        // warning naming the schema; the run goes on (generation-budget.ts).
        const generating = async (what: string, work: () => Promise<void>) => {
          try {
            await work();
          } catch (error) {
            if (!(error instanceof GenerationBudgetExceeded)) throw error;
            ledger.notice(generationNotice(op.id, what, error));
          }
        };
        // Every media type the body accepts that the suite can write: examples and coverage in
        // full for each, the fuzzing budget shared among them (as Schemathesis draws one media
        // type per example). The probes use the first.
        const variants = bodyVariants(op);
        const label = (v: Operation) => (variants.length > 1 ? ` (${v.body!.mediaType})` : "");
        for (const v of variants) {
          if (phase === "examples") await generating(`examples${label(v)}`, () => sendAll(v, exampleCases(ctx, v, overrides)));
          if (phase === "coverage") await generating(`coverage cases${label(v)}`, () => sendAll(v, coverageCases(v, mode, seed, { overrides })));
          if (phase === "fuzzing") {
            const budget = Math.max(1, Math.ceil(maxExamples / variants.length));
            const positiveBudget = mode === "all" ? Math.ceil(budget / 2) : budget;
            const deps = {
              // Shrinking (silent) replays candidates whatever was sent before.
              send: (c: Case, silent: boolean) => (silent ? ctx.send(v, c, { silent }) : ctx.sendNew(v, c, seenFor(v))),
              judge: (ex: Exchange) => judge(ex),
              judgeOne: (check: string, ex: Exchange) => judge(ex, check).get(check) ?? [],
              report,
              shouldStop: stop,
            };
            if (mode !== "negative") await generating(`fuzzing${label(v)}`, () => fuzzOperation(v, positiveCaseArb(v, { overrides }), positiveBudget, seed, deps));
            if (mode !== "positive") {
              await generating(`negative fuzzing${label(v)}`, async () => {
                const negative = negativeCaseArb(v, { overrides });
                if (negative) await fuzzOperation(v, negative, mode === "all" ? budget - positiveBudget : budget, seed + 1, deps);
              });
            }
          }
        }
        if (phase === "coverage") await runProbes(phase, op);
        if (phase === "stateful") await runProbes(phase, op);
        // fast-check reports a property that threw as failed, so fuzzing swallows an interruption.
        if (opts.signal?.aborted) throw new RunInterrupted(opts.signal.reason);
        await ctx.flushCleanup(keep);
        opts.onProgress?.(phase, ++done, operations.length);
      });
      if (phase === "stateful") await ctx.flushCleanup();
    }
    // Lanes skip what is left once the signal fires; the run still ended early.
    if (opts.signal?.aborted) throw new RunInterrupted(opts.signal.reason);
  };

  await hooks.beforeAll?.();
  const prefetch = prefetchScopedKeys(ctx, checks, operations, phases);
  try {
    try {
      await runPhases();
    } catch (error) {
      if (!(error instanceof RunInterrupted)) throw error;
      interrupted = reasonText(opts.signal?.reason);
      ledger.notice(`interrupted (${interrupted}) during the ${currentPhase} phase after ${ledger.requests} requests: this report covers what ran until then; checks judged at the end of a run (success coverage) did not run, and resources the run created may not have been deleted`);
    }
    // Checks judged on the whole run would judge a run cut short: not when interrupted.
    for (const op of interrupted ? [] : [...operations, ...unwritable]) {
      for (const check of checks) {
        const cov = ledger.coverage.get(op.id);
        const findings = check.final && cov ? check.final(ctx, op, cov) : null;
        if (findings === null) continue;
        if (!findings.length) ledger.outcome(op.id, check.name, true);
        for (const f of findings) report(check.name, fakeExchange(op, phasesRun[phasesRun.length - 1] ?? "stateful"), [f]);
      }
    }
    if (!contract.operations.length) ledger.notice(`the contract has no operations to test (no paths${contract.raw.webhooks ? `; ${Object.keys(contract.raw.webhooks).length} webhooks` : ""})`);
    for (const n of [ledger.authNotice(), ledger.rateLimitNotice(), ...uncheckedEventsNotices(contract, config, checks, operations, ledger)]) if (n) ledger.notice(n);
    // What the contract asks that the suite could not honour, by JSON pointer: never silent.
    for (const w of contract.warnings) ledger.notice(`contract ${w.pointer}: ${w.message}`);
    for (const s of unvalidatedSchemas()) ledger.notice(`schema ${s.pointer} cannot be compiled (${s.message}): nothing was validated against it, and the checks that need it report "unvalidated"`);
    const oversized = oversizedParametersNotice(operations);
    if (oversized) ledger.notice(oversized);
    const formats = unknownFormats();
    if (formats.length) ledger.notice(`formats the suite does not check (values of these are judged by type only): ${formats.join(", ")}`);
  } finally {
    // Keys the run made are removed like the resources it made (a run's own keys pile up otherwise),
    // those still being made ahead of the probes too.
    await prefetch.settle();
    for (const problem of await ctx.keys.revokeAll?.() ?? []) ledger.notice(problem);
    await hooks.afterAll?.();
    client.close();
  }
  const judged = ledger.totals();
  const nothingChecked = interrupted || judged.passed + judged.failed > 0 ? undefined : nothingCheckedReason(contract, selected.length, operations.length, ledger.requests);
  return { nothingChecked, contract, ledger, seed, durationMs: Date.now() - started, checks: checks.map((c) => c.name), operations, phases: phasesRun, interrupted, errorSchema: config.errorSchema };
}

/**
 * Starts making the scoped keys the probes of the phases to run will ask for, a few at a time, in
 * the background: a `keys.withScopes` command is a process start each (about a second), and
 * inside the probes they were made one by one while the lanes waited. The keys are the same
 * (cached per scope set, revoked at the end); a failure surfaces where a probe awaits the key.
 */
function prefetchScopedKeys(ctx: CheckContext, checks: Check[], operations: Operation[], phases: Phase[]): { settle(): Promise<void> } {
  const sets = new Map<string, string[]>();
  for (const check of checks) {
    if (!check.scopeSets || !phases.includes(check.phase ?? "coverage")) continue;
    for (const op of operations) for (const set of check.scopeSets(ctx, op)) sets.set([...set].sort().join(","), set);
  }
  const queue = [...sets.values()];
  const lane = async () => {
    for (let set = queue.shift(); set; set = queue.shift()) await ctx.keys.forScopes(set).catch(() => undefined);
  };
  const lanes = Array.from({ length: PREFETCH_LANES }, lane);
  // What no probe asked for yet is not made any more (an interrupted run); what is being made is awaited.
  return { settle: async () => void (queue.length = 0, await Promise.all(lanes)) };
}

/** Key commands running at once: more would only compete for the cores the run itself uses. */
const PREFETCH_LANES = 3;

/**
 * The fuzzing phase starts with the operations whose answers took longest so far (a create that
 * generates an RSA key or hashes a password: 200 to 300 ms each, against 10 ms for a read), so
 * the lanes do not end with one slow operation running alone. Cases are drawn per operation:
 * the order changes no request. Other phases keep the contract's order.
 */
function slowestFirst(operations: Operation[], phase: Phase, ledger: Ledger): Operation[] {
  if (phase !== "fuzzing") return operations;
  const mean = (op: Operation) => {
    const l = ledger.latency.get(op.id);
    return l?.answered ? l.ms / l.answered : 0;
  };
  return [...operations].sort((a, b) => mean(b) - mean(a));
}

/** Cases built from the contract's examples, missing parts filled from a seeded sample. */
function exampleCases(ctx: CheckContext, op: Operation, values: Record<string, unknown>): Case[] {
  let base: Case | undefined;
  try {
    base = fc.sample(positiveCaseArb(op, { overrides: values }), { seed: ctx.seed, numRuns: 1 })[0];
  } catch (error) {
    if (error instanceof GenerationBudgetExceeded) throw error; // reported by the caller
    return []; // the schema admits no value the generator can find
  }
  const out: Case[] = [];
  const props: Record<string, unknown> = (op.body?.schema as any)?.properties ?? {};
  for (const example of op.body?.examples ?? []) {
    // The example's placeholders (example.test) give way to the fixtures the server recognises.
    const body = example && typeof example === "object" && !Array.isArray(example)
      ? { ...example, ...Object.fromEntries(Object.entries(values).filter(([k]) => Object.hasOwn(props, k) && Object.hasOwn(example as object, k))) }
      : example;
    out.push({ ...base, body, hasBody: true });
  }
  for (const p of op.parameters) {
    const bag = caseField(p);
    for (const example of p.examples) out.push({ ...base, [bag]: { ...base[bag], [p.name]: example } });
  }
  // An example that breaks its own schema is the contract's problem; it is sent but judged by
  // the response checks only, never by the data-acceptance checks.
  return out.map((c) => (caseIsValid(op, c) ? c : { ...c, mode: "negative" as const, mutation: "contract example outside its schema" }));
}

/**
 * Webhooks and callbacks the run did not check, named: reading them is not checking them (issue
 * 39 item 4). A webhook is checked when webhook_signature_conformance judged its subscription.
 */
function uncheckedEventsNotices(contract: Contract, config: ConformanceConfig, checks: Check[], operations: Operation[], ledger: Ledger): string[] {
  const out: string[] = [];
  const hooks: Record<string, any> = contract.raw.webhooks ?? {};
  const names = Object.keys(hooks);
  if (names.length) {
    const cfg = config.webhooks;
    const selected = checks.some((c) => c.name === "webhook_signature_conformance");
    const judged = cfg && ledger.outcomes.get(cfg.subscribe)?.has("webhook_signature_conformance") ? webhookEntry(hooks, cfg.webhook ?? cfg.trigger.event)?.[0] : undefined;
    const left = names.filter((n) => n !== judged);
    const why = !cfg
      ? 'no "webhooks" config says how to subscribe (subscribe, trigger, urlAt, signature)'
      : !selected
        ? "webhook_signature_conformance did not run (it is opt-in: --checks all or --checks webhook_signature_conformance)"
        : judged
          ? "the configured trigger causes one event only"
          : `the subscription through ${cfg.subscribe} was not judged (see above)`;
    if (left.length) out.push(`webhooks not checked (${left.length} of ${names.length}): ${left.join(", ")}; ${why}`);
  }
  if (!checks.some((c) => c.name === "callback_conformance")) {
    const callbacks = operations.flatMap((o) => (o.callbacks ?? []).map((c) => `${o.id}.${c.name}`));
    if (callbacks.length) out.push(`callbacks not checked (${callbacks.length}): ${callbacks.join(", ")}; callback_conformance did not run`);
  }
  return out;
}

/** Why a run judged nothing, in the words a user can act on. */
function nothingCheckedReason(contract: Contract, selected: number, runnable: number, requests: number): string {
  if (!contract.operations.length) return "the contract has no operations (paths) to test";
  if (!selected) return `no operation was selected: the filters or the config's skips left none of the contract's ${contract.operations.length}`;
  if (!runnable) return `none of the ${selected} selected operations can be sent (request bodies the suite cannot write; see the warnings)`;
  if (!requests) return `no request was sent to the ${runnable} selected operations: no case could be drawn (see the warnings)`;
  return `${requests} requests were sent, but no check applied to any of them`;
}

const variantsOf = new WeakMap<Operation, Operation[]>();

/** The operation once per request media type the suite can write, its preferred one first (kept: generators are cached per operation object). */
function bodyVariants(op: Operation): Operation[] {
  let variants = variantsOf.get(op);
  if (!variants) variantsOf.set(op, (variants = [op, ...(op.otherBodies ?? []).map((body) => ({ ...op, body, otherBodies: undefined }))]));
  return variants;
}

function fakeExchange(op: Operation, phase: Phase): Exchange {
  return {
    operation: op,
    case: { operationId: op.id, pathParams: {}, query: {}, headers: {}, hasBody: false, mode: "positive" },
    request: { method: op.method, url: op.path, headers: {} },
    response: { status: 0, headers: {}, text: "", isJson: false },
    phase,
    keyRole: "default",
  };
}
