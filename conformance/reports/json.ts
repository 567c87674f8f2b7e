// The machine-readable report; `platform-conformance replay` reads it back.
import { documentedStatuses } from "../engine/response-spec.ts";
import type { RunResult } from "../engine/runner.ts";

export function jsonReport(result: RunResult, meta: { spec: string; baseUrl: string }) {
  const { passed, failed, unvalidated } = result.ledger.totals();
  return {
    tool: "platform-conformance",
    spec: meta.spec,
    baseUrl: meta.baseUrl,
    seed: result.seed,
    durationMs: result.durationMs,
    requests: result.ledger.requests,
    /** the phases that ran (the last one in part when interrupted) */
    phases: result.phases,
    /** "SIGINT"/"SIGTERM" when the run was stopped early: the report covers what ran until then */
    interrupted: result.interrupted ?? null,
    checks: result.checks,
    /** the config's errorSchema, when it named one: replay judges error bodies by it */
    errorSchema: result.errorSchema ?? null,
    summary: { passed, failed, unvalidated },
    /** why the run judged nothing (then it is not a pass), or null */
    nothingChecked: result.nothingChecked ?? null,
    failures: result.ledger.failures,
    /** what the run could not do (values it could not generate, media types it cannot send...) */
    warnings: result.ledger.notices,
    /** (operation, check) pairs not judged because a schema they need cannot be compiled, and why */
    unvalidated: [...result.ledger.unvalidated].flatMap(([operationId, byCheck]) => [...byCheck].map(([check, reason]) => ({ operationId, check, reason }))),
    coverage: [...result.ledger.coverage.values()].map((c) => ({
      operationId: c.operation.id,
      method: c.operation.method,
      path: c.operation.path,
      cases: c.cases,
      statuses: Object.fromEntries(c.statuses),
      documented: documentedStatuses(c.operation),
    })),
    outcomes: Object.fromEntries([...result.ledger.outcomes].map(([op, m]) => [op, Object.fromEntries(m)])),
  };
}

export type JsonReport = ReturnType<typeof jsonReport>;
