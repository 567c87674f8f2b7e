// Scores the gate on a part of openapi-diff's labelled pairs (extract.ts): breaking pairs caught
// (an ERR finding), compatible pairs falsely alarmed (an ERR finding), documents that cannot be
// read, and every document compared with itself (no finding at all).
// `node scripts/compat/openapi-diff/score.ts [openapi-diff|openapi-diff-heldout] [--show]` prints
// the score, and with --show every disagreement with its findings.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compareDocuments, type Finding } from "../compare.ts";
import { loadDocument } from "../load.ts";
import type { PeerPair } from "./extract.ts";

const compatDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../test/compat");
// A fixed clock, as for oasdiff's pairs (sunset dates read the same every day).
const clock = new Date("2026-01-01T00:00:00Z");

export interface PeerResult {
  base: string;
  revision: string;
  tests: string[];
  label: PeerPair["label"];
  breaking: boolean;
  findings: Finding[];
  error?: string;
}

export interface Judged {
  base: string;
  revision: string;
  label: "breaking" | "compatible" | "warning";
  reason: string;
}

export interface PeerScore {
  part: string;
  breaking: { total: number; caught: number };
  compatible: { total: number; alarmed: number };
  /** The same with the labels judged by hand (judged.json: pairs where the peer's label was read otherwise). */
  judged: {
    breaking: { total: number; caught: number };
    compatible: { total: number; alarmed: number };
    count: number;
  };
  errors: number;
  self: { total: number; unequal: string[] };
  results: PeerResult[];
}

export function scorePart(part: string): PeerScore {
  const dir = join(compatDir, part);
  const labels = JSON.parse(readFileSync(join(dir, "labels.json"), "utf8"));
  const byPair = new Map<string, PeerPair[]>();
  for (const p of labels.pairs as PeerPair[])
    byPair.set(`${p.base}\n${p.revision}`, [...(byPair.get(`${p.base}\n${p.revision}`) ?? []), p]);
  const results: PeerResult[] = [...byPair.values()].map((tests) => {
    // Tests of one pair that disagree: the breaking assertion wins (it names a specific break).
    const label = tests.some((t) => t.label === "breaking") ? "breaking" : "compatible";
    const common = {
      base: tests[0].base,
      revision: tests[0].revision,
      label,
      tests: tests.map((t) => t.test),
    } as const;
    try {
      const findings = compareDocuments(
        loadDocument(join(dir, "data", tests[0].base)),
        loadDocument(join(dir, "data", tests[0].revision)),
        clock,
      );
      return { ...common, findings, breaking: findings.some((f) => f.level === "ERR") };
    } catch (e) {
      return { ...common, findings: [], breaking: false, error: (e as Error).message };
    }
  });
  const unequal: string[] = [];
  let total = 0;
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ya?ml|json)$/.test(f)) {
        let doc;
        try {
          doc = loadDocument(p);
        } catch {
          continue; // fragments and Swagger 2 documents are not compared (load.ts refuses them)
        }
        total++;
        const findings = compareDocuments(doc, loadDocument(p), clock);
        if (findings.length)
          unequal.push(`${p.slice(dir.length + 1)}: ${findings.map((x) => x.id)}`);
      }
    }
  };
  walk(join(dir, "data"));
  const scored = results.filter((r) => !r.error);
  const judgedFile = join(dir, "judged.json");
  const judged: Judged[] = existsSync(judgedFile)
    ? JSON.parse(readFileSync(judgedFile, "utf8")).judged
    : [];
  const judgedLabel = (r: PeerResult) =>
    judged.find((j) => j.base === r.base && j.revision === r.revision)?.label ?? r.label;
  const isBreaking = (r: PeerResult) => judgedLabel(r) === "breaking";
  return {
    judged: {
      breaking: {
        total: scored.filter(isBreaking).length,
        caught: scored.filter((r) => isBreaking(r) && r.breaking).length,
      },
      compatible: {
        total: scored.filter((r) => !isBreaking(r)).length,
        alarmed: scored.filter((r) => !isBreaking(r) && r.breaking).length,
      },
      count: judged.length,
    },
    part,
    breaking: {
      total: scored.filter((r) => r.label === "breaking").length,
      caught: scored.filter((r) => r.label === "breaking" && r.breaking).length,
    },
    compatible: {
      total: scored.filter((r) => r.label === "compatible").length,
      alarmed: scored.filter((r) => r.label === "compatible" && r.breaking).length,
    },
    errors: results.filter((r) => r.error).length,
    self: { total, unequal },
    results,
  };
}

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : "-");
export function scoreLine(s: PeerScore): string {
  const j = s.judged;
  const judgedLine = j.count
    ? `\n${s.part}, ${j.count} label(s) judged by hand (judged.json): caught ${j.breaking.caught}/${j.breaking.total} (${pct(j.breaking.caught, j.breaking.total)} %), false alarms ${j.compatible.alarmed}/${j.compatible.total} (${pct(j.compatible.alarmed, j.compatible.total)} %)`
    : "";
  return `${s.part}, openapi-diff's own labels: caught ${s.breaking.caught}/${s.breaking.total} breaking (${pct(s.breaking.caught, s.breaking.total)} %), false alarms ${s.compatible.alarmed}/${s.compatible.total} (${pct(s.compatible.alarmed, s.compatible.total)} %), ${s.errors} pair(s) not readable, ${s.self.total - s.self.unequal.length}/${s.self.total} documents equal to themselves${judgedLine}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const part = process.argv.find((a, i) => i > 1 && !a.startsWith("--")) ?? "openapi-diff";
  const s = scorePart(part);
  console.log(scoreLine(s));
  if (process.argv.includes("--show")) {
    for (const r of s.results)
      if (r.error || (r.label === "breaking") !== r.breaking)
        console.log(
          `\n${r.label.toUpperCase()} ${r.base} -> ${r.revision} (${r.tests.join(", ")})${r.error ? `\n  error: ${r.error}` : ""}\n` +
            r.findings.map((f) => `  ${f.level} ${f.id} ${f.operation}: ${f.message}`).join("\n"),
        );
    for (const u of s.self.unequal) console.log(`not equal to itself: ${u}`);
  }
}
