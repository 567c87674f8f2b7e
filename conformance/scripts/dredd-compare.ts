// Runs Dredd (the contract's OpenAPI 3.0 rendering; Dredd reads no 3.1) against the correct fixture
// and every platform entry of the broken-server catalogue. Dredd fails the correct server too, so
// each entry is judged by the transactions that fail on it and pass on the correct server (and the
// reverse). The table in README.md is this output.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { XMLParser } from "fast-xml-parser";
import { catalogue, MINI_CONTRACT } from "../fixtures/broken-servers/index.ts";
import { startPlatform } from "../fixtures/platform.ts";

const root = path.resolve(import.meta.dirname, "../..");
// Dredd refuses a description whose required path parameters lack examples, which the contract's
// do (ids are created at run time). The copy it gets has one: fixtures for zone and domain, a
// fixed id elsewhere. Nothing else changes.
const spec = path.join(mkdtempSync(path.join(os.tmpdir(), "dredd-")), "openapi-3.0.json");
const doc = JSON.parse(readFileSync(path.join(root, "generated/openapi/openapi-3.0.json"), "utf8"));
const fixture: Record<string, string> = { zone: "p1.example.com", domain: "p1.example.com" };
for (const item of Object.values<any>(doc.paths)) {
  for (const holder of [item, ...Object.values<any>(item)]) {
    for (const p of holder?.parameters ?? []) {
      const param = p.$ref ? undefined : p;
      // Dredd reads `example`, not the `examples` map the contract uses.
      if (param && (param.in === "path" || param.required) && param.example === undefined) param.example = fixture[param.name] ?? (Object.values<any>(param.examples ?? {})[0]?.value ?? "res_1");
    }
  }
}
writeFileSync(spec, JSON.stringify(doc));
// Run by this Node, not whatever `node` the bin script's shebang finds.
const dredd = path.join(root, "node_modules/dredd/bin/dredd");

interface DreddRun {
  /** transaction name -> pass | fail | skip */
  results: Map<string, string>;
  summary: string;
}

// Per-transaction results come from Dredd's xunit report (its console repeats failures at the end,
// so counting console lines would not do). Names repeat when a response has several examples:
// the n-th one is `name #n`.
let runs = 0;
async function runDredd(url: string, key: string): Promise<DreddRun> {
  const xml = path.join(path.dirname(spec), `dredd-${runs++}.xml`);
  try {
    await promisify(execFile)(process.execPath, [dredd, spec, url, "--header", `Authorization: Bearer ${key}`, "--loglevel", "warning", "--color", "false", "--reporter", "xunit", "--output", xml], { cwd: root, timeout: 180_000, maxBuffer: 64 << 20 });
  } catch {
    // exit 1 when a transaction fails: the report says which
  }
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "testcase" }).parse(readFileSync(xml, "utf8"));
  const results = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const c of doc.testsuite?.testcase ?? []) {
    const name = String(c["@_name"]);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    results.set(n > 1 ? `${name} #${n}` : name, c.failure !== undefined ? "fail" : c.skipped !== undefined ? "skip" : "pass");
  }
  const fails = [...results.values()].filter((v) => v === "fail").length;
  return { results, summary: `${results.size - fails} passing, ${fails} failing of ${results.size}` };
}

const failing = (r: DreddRun) => new Set([...r.results].filter(([, v]) => v === "fail").map(([k]) => k));
const entries = [{ name: "correct", patch: undefined }, ...catalogue.filter((b) => !MINI_CONTRACT.has(b.name))];
let baseline: Set<string> | undefined;
for (const entry of entries) {
  const f = await startPlatform(entry.patch);
  const r = await runDredd(f.server.url, String(f.config.keys?.all));
  await f.server.close();
  const fails = failing(r);
  if (!baseline) {
    baseline = fails;
    console.log(`${entry.name.padEnd(28)} ${r.summary}`);
    continue;
  }
  const beyond = [...fails].filter((t) => !baseline!.has(t));
  const fixed = [...baseline].filter((t) => !fails.has(t));
  console.log(`${entry.name.padEnd(28)} ${beyond.length ? `FLAGS ${beyond.length} beyond baseline` : "nothing beyond baseline"}${fixed.length ? `, ${fixed.length} baseline failures now pass` : ""}; ${r.summary}`);
  for (const t of beyond) console.log(`    + ${t}`);
  for (const t of fixed) console.log(`    - ${t}`);
}
