// A single self-contained page: verdict first, then failures grouped by check with copyable curl
// lines, then the coverage table. No external assets, so it can be attached to a CI run as is.
import { toCurl } from "../engine/request.ts";
import { unseenStatuses } from "../engine/response-spec.ts";
import { esc } from "./escape.ts";
import type { JsonReport } from "./json.ts";


export function htmlReport(r: JsonReport): string {
  const ok = r.summary.failed === 0;
  const byCheck = new Map<string, typeof r.failures>();
  for (const f of r.failures) byCheck.set(f.check, [...(byCheck.get(f.check) ?? []), f]);
  const failures = [...byCheck].map(([check, list]) => `
  <section><h3>${esc(check)} <span class="n">${list.length}</span></h3>
  ${list.map((f) => `<details open><summary><span class="sev ${esc(f.severity)}">${esc(f.severity)}</span> <b>${esc(f.operation)}</b> — ${esc(f.title)}</summary>
    <p>${esc(f.message)}</p>
    <table><tr><th>expected</th><td>${esc(f.expected)}</td></tr><tr><th>got</th><td>${esc(f.got)}</td></tr><tr><th>seed</th><td>${esc(f.seed)} (${esc(f.phase)})</td></tr></table>
    ${f.request.url.startsWith("http") ? `<pre>${esc(toCurl(f.request))}</pre>` : ""}</details>`).join("")}
  </section>`).join("");
  const coverage = r.coverage.map((c) => {
    const seen = Object.keys(c.statuses);
    const missing = unseenStatuses(c.documented, seen);
    const failed = Object.values((r.outcomes as any)[c.operationId] ?? {}).some((o: any) => o.failed);
    return `<tr class="${failed ? "bad" : c.cases ? "" : "idle"}"><td>${esc(c.method)}</td><td>${esc(c.path)}</td><td>${esc(c.operationId)}</td><td>${c.cases}</td><td>${esc(seen.join(", "))}</td><td>${esc(missing.join(", "))}</td></tr>`;
  }).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Conformance report</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#222}
.verdict{padding:1rem 1.25rem;border-radius:8px;color:#fff;background:${ok ? "#2e7d32" : "#c62828"}}
.verdict b{font-size:1.6rem}.meta{color:#eee}
h3{border-bottom:1px solid #ddd;padding-bottom:.25rem}.n{background:#eee;border-radius:9px;padding:0 .5rem;font-size:.8rem}
details{margin:.5rem 0 1rem;padding:.5rem .75rem;border-left:3px solid #c62828;background:#fafafa}
pre{background:#272822;color:#f8f8f2;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.sev{font-size:.75rem;text-transform:uppercase;padding:0 .4rem;border-radius:4px;background:#999;color:#fff}
.critical{background:#b71c1c}.high{background:#e65100}.medium{background:#f9a825;color:#222}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
tr.bad td{background:#fdecea}tr.idle td{color:#999}
</style></head><body>
<div class="verdict"><b>${r.interrupted ? `INTERRUPTED (${esc(r.interrupted)}), partial: ` : ""}${ok ? "PASS" : "FAIL"}</b> — ${r.summary.passed} passed, ${r.summary.failed} failed${r.summary.unvalidated ? `, ${r.summary.unvalidated} unvalidated (a schema could not be compiled; see the JSON report)` : ""}
<div class="meta">${esc(r.spec)} against ${esc(r.baseUrl)} · seed ${r.seed} · ${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s · checks: ${esc(r.checks.join(", "))}</div></div>
<h2>Failures</h2>${failures || "<p>None.</p>"}
<h2>Coverage</h2><table><tr><th>method</th><th>path</th><th>operation</th><th>cases</th><th>statuses seen</th><th>documented, not seen</th></tr>${coverage}</table>
</body></html>
`;
}
