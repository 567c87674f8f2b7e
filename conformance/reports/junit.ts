// JUnit XML: one testsuite per operation, one testcase per check that ran on it.
import { toCurl } from "../engine/request.ts";
import type { RunResult } from "../engine/runner.ts";
import { esc } from "./escape.ts";


export function junitReport(result: RunResult): string {
  const suites: string[] = [];
  const { passed, failed } = result.ledger.totals();
  for (const [op, byCheck] of result.ledger.outcomes) {
    const cases = [...byCheck].map(([check, o]) => {
      const f = result.ledger.failures.find((x) => x.operation === op && x.check === check);
      const body = o.failed && f ? `<failure message="${esc(f.title)}" type="${esc(check)}">${esc(`${f.message}\nexpected: ${f.expected ?? ""}\ngot: ${f.got ?? ""}\n${f.request.url.startsWith("http") ? toCurl(f.request) : ""}\nseed: ${f.seed}`)}</failure>` : "";
      return `    <testcase classname="${esc(op)}" name="${esc(check)}">${body}</testcase>`;
    });
    const fails = [...byCheck.values()].filter((o) => o.failed).length;
    suites.push(`  <testsuite name="${esc(op)}" tests="${byCheck.size}" failures="${fails}">\n${cases.join("\n")}\n  </testsuite>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="platform-conformance" tests="${passed + failed}" failures="${failed}" time="${(result.durationMs / 1000).toFixed(3)}">\n${suites.join("\n")}\n</testsuites>\n`;
}
