// Renders findings for people: the gate's report and the CHANGELOG.md section of a release.
import type { Finding } from "./compare.ts";

export function report(findings: Finding[], against: string): string {
  const breaking = findings.filter((f) => f.verdict === "breaking");
  const lines = [`compat: ${findings.length} change(s) against release ${against}, ${breaking.length} breaking`];
  for (const f of breaking) lines.push(`  BREAKING ${f.rule}: ${f.operation}: ${f.says}\n    at ${f.pointer}`);
  if (findings.length > breaking.length) lines.push("", changelogSection("Unreleased", findings));
  return lines.join("\n");
}

/** One Markdown section: compatible changes grouped by operation (breaking ones never reach a release). */
export function changelogSection(version: string, findings: Finding[], date?: string): string {
  const byOp = new Map<string, Finding[]>();
  for (const f of findings.filter((x) => x.verdict === "compatible")) {
    if (!byOp.has(f.operation)) byOp.set(f.operation, []);
    byOp.get(f.operation)!.push(f);
  }
  const out = [`## ${version}${date ? ` (${date})` : ""}`, ""];
  if (byOp.size === 0) out.push("No changes to the contract.");
  for (const [op, list] of [...byOp].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`- \`${op}\``);
    for (const f of list) out.push(`  - ${f.rule}: ${f.description} (\`${f.pointer}\`)`);
  }
  return out.join("\n");
}
