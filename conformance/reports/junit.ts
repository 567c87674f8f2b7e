// JUnit XML: one testsuite per operation, one testcase per check that ran on it.
import { toCurl } from "../engine/request.ts";
import type { RunResult } from "../engine/runner.ts";
import { esc } from "./escape.ts";


export function junitReport(result: RunResult): string {
  const suites: string[] = [];
  const { passed, failed, unvalidated } = result.ledger.totals();
  const operations = new Set([...result.ledger.outcomes.keys(), ...result.ledger.unvalidated.keys()]);
  for (const op of operations) {
    const byCheck = result.ledger.outcomes.get(op) ?? new Map();
    const notJudged = result.ledger.unvalidated.get(op) ?? new Map<string, string>();
    const checks = new Set([...byCheck.keys(), ...notJudged.keys()]);
    let fails = 0;
    let skips = 0;
    const cases = [...checks].map((check) => {
      const o = byCheck.get(check);
      const f = result.ledger.failures.find((x) => x.operation === op && x.check === check);
      let body = "";
      if (o?.failed && f) {
        fails++;
        body = `<failure message="${esc(f.title)}" type="${esc(check)}">${esc(`${f.message}\nexpected: ${f.expected ?? ""}\ngot: ${f.got ?? ""}\n${f.request.url.startsWith("http") ? toCurl(f.request) : ""}\nseed: ${f.seed}`)}</failure>`;
      } else if (notJudged.has(check)) {
        // A check that could not judge is skipped, never passed (validator.ts, "unvalidated").
        skips++;
        body = `<skipped message="${esc(`unvalidated: ${notJudged.get(check)}`)}"/>`;
      }
      return `    <testcase classname="${esc(op)}" name="${esc(check)}">${body}</testcase>`;
    });
    suites.push(`  <testsuite name="${esc(op)}" tests="${checks.size}" failures="${fails}" skipped="${skips}">\n${cases.join("\n")}\n  </testsuite>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="platform-conformance${result.interrupted ? ` (interrupted by ${esc(result.interrupted)}, partial)` : ""}" tests="${passed + failed + unvalidated}" failures="${failed}" skipped="${unvalidated}" time="${(result.durationMs / 1000).toFixed(3)}">\n${suites.join("\n")}\n</testsuites>\n`;
}
