// The gate's output formats, for people and for CI: text (as `oasdiff breaking` prints), json,
// yaml, markdown, html, junit (one test case per finding; the failing levels are failures) and
// githubactions (workflow commands: an annotation on the revision's line each finding names).
// The report lists findings by level; the changelog lists every change grouped by operation.
import { stringify } from "yaml";
import type { Finding } from "./compare.ts";
import { lineOf } from "./lines.ts";

export const formats = [
  "text",
  "json",
  "yaml",
  "markdown",
  "html",
  "junit",
  "githubactions",
] as const;
export type Format = (typeof formats)[number];

/** A finding with what the allow-list said of it (allow-list.ts). */
export interface Reported extends Finding {
  allowed?: string;
}

export interface Meta {
  title: string;
  base: string;
  revision: string;
  /** Levels that fail the gate (--fail-on). */
  failing: Set<Finding["level"]>;
  /** The revision's text and the file annotations name (githubactions). */
  revisionText?: string;
  revisionFile?: string;
  baseText?: string;
  baseFile?: string;
}

const order = { ERR: 0, WARN: 1, UNCLASSIFIED: 2, INFO: 3 } as const;
const byLevel = (a: Finding, b: Finding) =>
  order[a.level] - order[b.level] ||
  a.id.localeCompare(b.id) ||
  a.operation.localeCompare(b.operation);

export function summaryOf(findings: Reported[]) {
  const n = (l: Finding["level"]) => findings.filter((f) => f.level === l && !f.allowed).length;
  return {
    changes: findings.length,
    breaking: n("ERR"),
    warnings: n("WARN"),
    unclassified: n("UNCLASSIFIED"),
    info: n("INFO"),
    allowed: findings.filter((f) => f.allowed).length,
  };
}
export function summaryText(findings: Reported[]): string {
  const s = summaryOf(findings);
  return `${s.changes} change(s), ${s.breaking} breaking, ${s.warnings} warning(s), ${s.unclassified} unclassified, ${s.info} info${s.allowed ? `, ${s.allowed} allowed` : ""}`;
}

/** Findings by operation, operations in order, each one's findings by level. */
export function byOperation(findings: Reported[]): [string, Reported[]][] {
  const m = new Map<string, Reported[]>();
  for (const f of findings) m.set(f.operation, [...(m.get(f.operation) ?? []), f]);
  return [...m]
    .sort(([a], [b]) => (a === "document" ? 1 : b === "document" ? -1 : a.localeCompare(b)))
    .map(([op, list]) => [op, list.sort(byLevel)]);
}

const plain = (f: Reported) => ({
  id: f.id,
  level: f.level,
  operation: f.operation,
  message: f.message,
  pointer: f.pointer,
  says: f.says,
  ...(f.allowed ? { allowed: f.allowed } : {}),
});
const html = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const xml = html;
const md = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const levelTag = (f: Reported) => (f.allowed ? `${f.level}, allowed` : f.level);

// GitHub workflow commands: data escapes %, CR, LF; property values also : and ,.
const ghData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const ghProp = (s: string) => ghData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

function githubActions(findings: Reported[], meta: Meta): string {
  const lines: string[] = [];
  for (const f of [...findings].sort(byLevel)) {
    // Something removed is named by a pointer into the base: annotate the base's line.
    const inRevision = meta.revisionText !== undefined && !/removed|deleted/.test(f.id);
    const text = inRevision ? meta.revisionText : (meta.baseText ?? meta.revisionText);
    const file = inRevision ? meta.revisionFile : (meta.baseFile ?? meta.revisionFile);
    const command = f.allowed
      ? "notice"
      : f.level === "ERR"
        ? "error"
        : f.level === "WARN" || f.level === "UNCLASSIFIED"
          ? "warning"
          : "notice";
    const props = [
      file ? `file=${ghProp(file)}` : "",
      text ? `line=${lineOf(text, f.pointer)}` : "",
      `title=${ghProp(`${f.level} ${f.id}`)}`,
    ]
      .filter(Boolean)
      .join(",");
    lines.push(
      `::${command} ${props}::${ghData(`${f.operation}: ${f.message}${f.allowed ? ` (allowed: ${f.allowed})` : ""}`)}`,
    );
  }
  lines.push(`${meta.title}: ${summaryText(findings)}`);
  return lines.join("\n");
}

function junit(findings: Reported[], meta: Meta): string {
  const failing = (f: Reported) => !f.allowed && meta.failing.has(f.level);
  const cases = byOperation(findings).flatMap(([op, list]) =>
    list.map((f) => {
      const head = `    <testcase classname="${xml(op)}" name="${xml(`[${f.id}] ${f.message}`)}">`;
      const body = failing(f)
        ? `\n      <failure type="${f.level}" message="${xml(f.message)}">${xml(`${f.level} [${f.id}] ${op}: ${f.message}\nat ${f.pointer}\n${f.says}`)}</failure>\n    `
        : `\n      <system-out>${xml(`${levelTag(f)} at ${f.pointer}`)}</system-out>\n    `;
      return `${head}${body}</testcase>`;
    }),
  );
  const failures = findings.filter(failing).length;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="compat" tests="${findings.length}" failures="${failures}">`,
    `  <testsuite name="${xml(`${meta.base} -> ${meta.revision}`)}" tests="${findings.length}" failures="${failures}">`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
  ].join("\n");
}

/** json and yaml: which comparison and its summary, then the findings under `body`'s keys. */
function structured(findings: Reported[], format: "json" | "yaml", meta: Meta, body: Record<string, unknown>): string {
  const data = { base: meta.base, revision: meta.revision, summary: summaryOf(findings), ...body };
  return format === "json" ? JSON.stringify(data, null, 2) : stringify(data).trimEnd();
}

/** The gate's report: every finding, by level. */
export function renderReport(findings: Reported[], format: Format, meta: Meta): string {
  const sorted = [...findings].sort(byLevel);
  const heading = `${meta.title}: ${summaryText(findings)}`;
  switch (format) {
    case "json":
    case "yaml":
      return structured(findings, format, meta, { findings: sorted.map(plain) });
    case "markdown": {
      const out = [`# ${md(meta.title)}`, "", summaryText(findings), ""];
      if (sorted.length) {
        out.push(
          "| Level | Rule | Operation | Change | Where |",
          "| --- | --- | --- | --- | --- |",
        );
        for (const f of sorted)
          out.push(
            `| ${levelTag(f)} | \`${f.id}\` | \`${md(f.operation)}\` | ${md(f.message)}${f.allowed ? ` (allowed: ${md(f.allowed)})` : ""} | \`${md(f.pointer)}\` |`,
          );
      }
      return out.join("\n");
    }
    case "html":
      return page(
        meta.title,
        `<p>${html(summaryText(findings))}</p>\n<table>\n<tr><th>Level</th><th>Rule</th><th>Operation</th><th>Change</th><th>Where</th></tr>\n${sorted
          .map(
            (f) =>
              `<tr class="${f.level.toLowerCase()}"><td>${html(levelTag(f))}</td><td><code>${html(f.id)}</code></td><td><code>${html(f.operation)}</code></td><td>${html(f.message)}${f.allowed ? ` (allowed: ${html(f.allowed)})` : ""}</td><td><code>${html(f.pointer)}</code></td></tr>`,
          )
          .join("\n")}\n</table>`,
      );
    case "junit":
      return junit(findings, meta);
    case "githubactions":
      return githubActions(findings, meta);
    default:
      return [
        heading,
        ...sorted.map(
          (f) =>
            `${(f.allowed ? `${f.level}*` : f.level).padEnd(12)} [${f.id}] ${f.operation}: ${f.message}${f.allowed ? ` (allowed: ${f.allowed})` : ""}\n             at ${f.pointer}`,
        ),
      ].join("\n");
  }
}

/** The changelog: every change grouped by operation. */
export function renderChangelog(findings: Reported[], format: Format, meta: Meta): string {
  const groups = byOperation(findings);
  switch (format) {
    case "json":
    case "yaml":
      return structured(findings, format, meta, { operations: groups.map(([operation, list]) => ({ operation, changes: list.map(plain) })) });
    case "markdown":
      return changelogMarkdown(findings, `# ${md(meta.title)}`);
    case "html":
      return page(
        meta.title,
        `<p>${html(summaryText(findings))}</p>\n${groups
          .map(
            ([op, list]) =>
              `<h2><code>${html(op)}</code></h2>\n<ul>\n${list
                .map(
                  (f) =>
                    `<li class="${f.level.toLowerCase()}"><strong>${html(levelTag(f))}</strong> <code>${html(f.id)}</code>: ${html(f.message)} <small><code>${html(f.pointer)}</code></small></li>`,
                )
                .join("\n")}\n</ul>`,
          )
          .join("\n")}`,
      );
    case "junit":
    case "githubactions":
      return renderReport(findings, format, meta);
    default: {
      const out = [`${meta.title}: ${summaryText(findings)}`];
      for (const [op, list] of groups) {
        out.push("", op);
        for (const f of list) out.push(`  ${levelTag(f).padEnd(10)} [${f.id}] ${f.message}`);
      }
      return out.join("\n");
    }
  }
}

/** Markdown sections, one per operation (the CHANGELOG.md writer's body). */
export function changelogMarkdown(findings: Reported[], heading: string, level = 2): string {
  const h = "#".repeat(level);
  const out = [heading, ""];
  const groups = byOperation(findings);
  if (!groups.length) out.push("No changes to the contract.");
  for (const [op, list] of groups) {
    out.push(`${h} \`${md(op)}\``, "");
    for (const f of list)
      out.push(`- ${levelTag(f)} \`${f.id}\`: ${md(f.message)} (\`${md(f.pointer)}\`)`);
    out.push("");
  }
  return out.join("\n").trimEnd();
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${html(title)}</title>\n<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;text-align:left}.err{background:#fdd}.warn{background:#ffd}</style>\n</head>\n<body>\n<h1>${html(title)}</h1>\n${body}\n</body>\n</html>`;
}
