// Agreement of the gate with oasdiff on the labelled pairs of test/compat/oasdiff/labels.json
// (extract.ts). A pair counts as reported breaking when one finding is ERR, as a warning when the
// highest is WARN. Every fixture is also compared with itself, which must show no change at all.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compareDocuments, type Finding } from "../compare.ts";
import { loadDocument } from "../load.ts";
import type { LabelledPair } from "./extract.ts";

export const dataDir = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../test/compat/oasdiff",
);

export interface PairResult extends LabelledPair {
  verdict: "ERR" | "WARN" | "INFO";
  findings: Finding[];
  error?: string;
}

// A fixed clock, so sunset dates in the fixtures (2020s and beyond) read the same every day.
export const clock = new Date("2026-01-01T00:00:00Z");

export function verdictOf(findings: Finding[]): PairResult["verdict"] {
  return findings.some((f) => f.level === "ERR")
    ? "ERR"
    : findings.some((f) => f.level === "WARN")
      ? "WARN"
      : "INFO";
}

export function runPairs(): { commit: string; results: PairResult[] } {
  const labels = JSON.parse(readFileSync(join(dataDir, "labels.json"), "utf8"));
  const results: PairResult[] = labels.pairs.map((p: LabelledPair) => {
    try {
      const findings = compareDocuments(
        loadDocument(join(dataDir, "data", p.base)),
        loadDocument(join(dataDir, "data", p.revision)),
        clock,
      );
      return { ...p, findings, verdict: verdictOf(findings) };
    } catch (e) {
      return { ...p, findings: [], verdict: "INFO", error: (e as Error).message };
    }
  });
  return { commit: labels.commit, results };
}

export function selfComparisons(): { file: string; findings: Finding[]; error?: string }[] {
  const out: { file: string; findings: Finding[]; error?: string }[] = [];
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ya?ml|json)$/.test(f)) {
        try {
          const doc = loadDocument(p);
          out.push({
            file: p.slice(dataDir.length + 1),
            findings: compareDocuments(doc, loadDocument(p), clock),
          });
        } catch (e) {
          // Fragments $ref'd by the specs are not documents of their own.
          if (!/not an OpenAPI document/.test((e as Error).message))
            out.push({ file: p, findings: [], error: (e as Error).message });
        }
      }
    }
  };
  walk(join(dataDir, "data"));
  return out;
}

export interface Agreement {
  err: { total: number; breaking: number };
  warn: { total: number; warning: number; breaking: number };
  /** oasdiff WARN, V1 ERR (v1Stricter): expected breaking. */
  v1: { total: number; breaking: number };
  compatible: { total: number; breaking: number };
  /** Pairs only single-check tests call compatible: shown, not part of the goal (see README). */
  singleCheckCompatible: { total: number; breaking: number };
  table: string;
}

export interface Pair {
  base: string;
  revision: string;
  tests: PairResult[];
  label: "ERR" | "WARN" | "WARN, ERR by V1" | "compatible" | "compatible (single check)";
  verdict: PairResult["verdict"];
}

/**
 * Where decision V1 is stricter than oasdiff on purpose (issue 38): a limit newly set on request
 * data refuses requests that passed before, exactly as a tightened one does, so it is ERR where
 * oasdiff warns. Such pairs are expected breaking.
 */
export const v1Stricter = /^request-(body|property|parameter|parameter-property|header|header-property)-(max|min|exclusive-max|exclusive-min|max-length|min-length|max-items|min-items|max-properties|min-properties|max-contains|min-contains|unique-items)-set$/;

/**
 * One label per spec pair, from every test that runs it: the highest level any test asserts. A
 * test that ran a single check (singleCheckConfig) only proves what it found; its silence or INFO
 * says nothing of the other checks, so such a pair is compatible for the goal only when a test
 * with all checks says so too.
 */
export function pairsOf(results: PairResult[]): Pair[] {
  const by = new Map<string, PairResult[]>();
  for (const r of results)
    by.set(`${r.base}\n${r.revision}`, [...(by.get(`${r.base}\n${r.revision}`) ?? []), r]);
  return [...by.values()].map((tests) => {
    const has = (l: string) => tests.some((t) => t.label === l);
    const ids = tests.flatMap((t) => t.expected.map((e) => e.id));
    const label: Pair["label"] = has("ERR")
      ? "ERR"
      : has("WARN") && ids.length > 0 && ids.every((id) => v1Stricter.test(id))
        ? "WARN, ERR by V1"
        : has("WARN")
          ? "WARN"
        : tests.some((t) => t.scope === "all")
          ? "compatible"
          : "compatible (single check)";
    return {
      base: tests[0].base,
      revision: tests[0].revision,
      tests,
      label,
      verdict: tests[0].verdict,
    };
  });
}

export function agreement(results: PairResult[], commit: string): Agreement {
  const pairs = pairsOf(results);
  const of = (label: Pair["label"]) => pairs.filter((p) => p.label === label);
  const count = (list: Pair[], v: PairResult["verdict"]) =>
    list.filter((p) => p.verdict === v).length;
  const err = of("ERR");
  const warn = of("WARN");
  const v1 = of("WARN, ERR by V1");
  const compatible = of("compatible");
  const single = of("compatible (single check)");
  const a: Agreement = {
    err: { total: err.length, breaking: count(err, "ERR") },
    warn: { total: warn.length, warning: count(warn, "WARN"), breaking: count(warn, "ERR") },
    v1: { total: v1.length, breaking: count(v1, "ERR") },
    compatible: { total: compatible.length, breaking: count(compatible, "ERR") },
    singleCheckCompatible: { total: single.length, breaking: count(single, "ERR") },
    table: "",
  };
  const pct = (n: number, d: number) => (d ? ((100 * n) / d).toFixed(1) : "-") + " %";
  const row = (name: string, list: Pair[], goal: string) =>
    `  ${name.padEnd(26)}${String(list.length).padStart(6)}${String(count(list, "ERR")).padStart(10)}${String(count(list, "WARN")).padStart(11)}${String(count(list, "INFO")).padStart(11)}  ${goal}`;
  const lines = [
    `agreement with oasdiff ${commit.slice(0, 12)} (checker tests): ${results.length} labelled tests, ${pairs.length} spec pairs`,
    `  oasdiff label                pairs  gate ERR  gate WARN  gate INFO  goal`,
    row("ERR", err, `>= 97 % breaking: ${pct(a.err.breaking, a.err.total)}`),
    row("WARN", warn, `reported as warnings: ${pct(a.warn.warning, a.warn.total)}`),
    row("WARN, ERR by V1", v1, `breaking (limit newly set): ${pct(a.v1.breaking, a.v1.total)}`),
    row(
      "INFO or silent",
      compatible,
      `<= 3 % breaking: ${pct(a.compatible.breaking, a.compatible.total)}`,
    ),
    row(
      "INFO or silent, 1 check",
      single,
      `not a goal (other checks not run): ${pct(a.singleCheckCompatible.breaking, a.singleCheckCompatible.total)} breaking`,
    ),
  ];
  const disagree = pairs.filter(
    (p) =>
      (p.label === "ERR" && p.verdict !== "ERR") ||
      (p.label === "WARN" && p.verdict !== "WARN") ||
      (p.label === "WARN, ERR by V1" && p.verdict !== "ERR") ||
      (p.label.startsWith("compatible") && p.verdict === "ERR"),
  );
  if (disagree.length) {
    lines.push("  disagreements:");
    for (const p of disagree) {
      const r = p.tests[0];
      const ids = [...new Set(p.tests.flatMap((t) => t.expected.map((e) => e.id)))];
      lines.push(
        `    ${p.tests.map((t) => t.test).join(", ")} [${p.label}: ${ids.join(", ") || "nothing"}] gate ${p.verdict}: ${[...new Set(r.findings.filter((f) => f.level === p.verdict).map((f) => f.id))].join(", ") || r.error || "nothing"}`,
      );
    }
  }
  a.table = lines.join("\n");
  return a;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { commit, results } = runPairs();
  console.log(agreement(results, commit).table);
  const self = selfComparisons().filter((s) => s.findings.length || s.error);
  console.log(`self comparisons with a change or error: ${self.length}`);
  for (const s of self.slice(0, 20))
    console.log(`  ${s.file}: ${s.error ?? s.findings.map((f) => f.id).join(", ")}`);
}
