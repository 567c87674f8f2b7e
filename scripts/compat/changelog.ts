// Renders findings for people: the gate's report (one line per finding, by rule id with its
// level, as `oasdiff breaking` prints them) and the CHANGELOG.md section of a release, where each
// change is listed under its rule.
import type { Finding } from "./compare.ts";

const order = { ERR: 0, WARN: 1, UNCLASSIFIED: 2, INFO: 3 } as const;

export function summary(findings: Finding[]): string {
  const n = (l: Finding["level"]) => findings.filter((f) => f.level === l).length;
  return `${findings.length} change(s), ${n("ERR")} breaking, ${n("WARN")} warning(s), ${n("UNCLASSIFIED")} unclassified, ${n("INFO")} info`;
}

export function report(findings: Finding[], heading: string): string {
  const lines = [heading];
  const sorted = [...findings].sort(
    (a, b) =>
      order[a.level] - order[b.level] ||
      a.id.localeCompare(b.id) ||
      a.operation.localeCompare(b.operation),
  );
  for (const f of sorted)
    lines.push(
      `${f.level.padEnd(12)} [${f.id}] ${f.operation}: ${f.message}\n             at ${f.pointer}`,
    );
  return lines.join("\n");
}

/** One Markdown section: every change of a release under its rule id (breaking ones never reach a release). */
export function changelogSection(version: string, findings: Finding[], date?: string): string {
  const byRule = new Map<string, Finding[]>();
  for (const f of findings) byRule.set(f.id, [...(byRule.get(f.id) ?? []), f]);
  const out = [`## ${version}${date ? ` (${date})` : ""}`, ""];
  if (byRule.size === 0) out.push("No changes to the contract.");
  for (const [id, list] of [...byRule].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`### ${id} (${list[0].level})`, "", `${list[0].says}.`, "");
    for (const f of list.sort((a, b) => a.operation.localeCompare(b.operation)))
      out.push(`- \`${f.operation}\`: ${f.message} (\`${f.pointer}\`)`);
    out.push("");
  }
  return out.join("\n").trimEnd();
}
