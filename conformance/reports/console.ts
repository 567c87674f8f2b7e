// What a person (or CI log) reads: failures with a reproducing curl line, coverage per operation,
// and as the very last line `N passed, N failed`, which CI parses.
import { toCurl } from "../engine/request.ts";
import type { RunResult } from "../engine/runner.ts";
import { documentedStatuses, unseenStatuses } from "../engine/response-spec.ts";

export function renderFailures(result: RunResult): string {
  const lines: string[] = [];
  for (const f of result.ledger.failures) {
    lines.push(`FAIL ${f.check} [${f.severity}] ${f.operation}: ${f.title}`);
    lines.push(`  ${f.message}`);
    if (f.expected !== undefined) lines.push(`  expected: ${f.expected}`);
    if (f.got !== undefined) lines.push(`  got:      ${f.got}`);
    if (f.request.url.startsWith("http")) lines.push(`  reproduce: ${toCurl(f.request)}`);
    lines.push(`  seed: ${f.seed} (phase ${f.phase})`, "");
  }
  return lines.join("\n");
}

export function renderCoverage(result: RunResult): string {
  const lines = ["coverage per operation (cases; statuses seen; documented statuses not seen):"];
  let exercised = 0;
  for (const cov of result.ledger.coverage.values()) {
    if (cov.cases) exercised++;
    const seen = [...cov.statuses.keys()].sort();
    const missing = unseenStatuses(documentedStatuses(cov.operation), seen);
    lines.push(`  ${cov.operation.id.padEnd(28)} ${String(cov.cases).padStart(5)}  seen ${seen.join(",") || "-"}  not seen ${missing.join(",") || "-"}`);
  }
  lines.push(`operations exercised: ${exercised}/${result.ledger.coverage.size}; requests: ${result.ledger.requests}; ${(result.durationMs / 1000).toFixed(1)} s; seed ${result.seed}`);
  return lines.join("\n");
}

/** Findings of strict-only checks when the run is not strict (success paths never reached). */
export function renderWarnings(result: RunResult): string {
  return [
    ...result.ledger.notices.map((n) => `WARNING ${n}`),
    ...result.ledger.warnings.map((w) => `WARNING ${w.check} ${w.operation}: ${w.message} (fails under --strict-coverage)`),
    ...[...result.ledger.unvalidated].flatMap(([op, byCheck]) => [...byCheck].map(([check, reason]) => `WARNING unvalidated ${check} ${op}: not judged, ${reason}`)),
  ].join("\n");
}

/** Above the summary when nothing was judged: `0 passed, 0 failed` is not a pass. */
export function nothingCheckedLine(result: RunResult): string {
  return result.nothingChecked ? `NOTHING CHECKED: ${result.nothingChecked}; this run is not a pass` : "";
}

/** Above the summary when the run was stopped early: what the numbers cover. */
export function interruptionLine(result: RunResult): string {
  if (!result.interrupted) return "";
  return `INTERRUPTED by ${result.interrupted} after ${result.ledger.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s (phases ${result.phases.join(", ") || "none"}): the results below cover what ran until then`;
}

export function summaryLine(result: RunResult): string {
  const { passed, failed, unvalidated } = result.ledger.totals();
  // "unvalidated": pairs whose check could not judge because a schema cannot be compiled; never
  // counted as passed. Only printed when there are some, so the usual line stays as CI parses it.
  return `${passed} passed, ${failed} failed${unvalidated ? `, ${unvalidated} unvalidated` : ""}`;
}
