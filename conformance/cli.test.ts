// The CLI as a user meets it: a child process of the same Node, a JSON config file, exit codes
// 0/1/2, reports on disk, and `replay` of a report. The fixture servers run in this process; the
// config file carries plain keys, minted up front for every scope set scope_enforcement asks for.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import missingRequiredField from "./fixtures/broken-servers/missing-required-field.ts";
import { startPlatform, type Fixture } from "./fixtures/platform.ts";
import type { JsonReport } from "./reports/json.ts";

const CLI = path.resolve(import.meta.dirname, "cli.ts");
// createMailbox is the broken entry's operation; the two others add a read and a delete.
const OPERATIONS = ["createMailbox", "listMailboxes", "deleteWebhook"];
const dir = mkdtempSync(path.join(os.tmpdir(), "conformance-cli-"));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** The fixture's config as a JSON file: the scoped-key function becomes a map. */
async function configFile(f: Fixture, name: string): Promise<string> {
  const all = f.contract.scopes;
  const mint = f.config.keys!.withScopes as (scopes: string[]) => string;
  const withScopes: Record<string, string> = {};
  for (const scope of all) {
    for (const set of [[scope], all.filter((s) => s !== scope)]) withScopes[[...set].sort().join(",")] = mint(set);
  }
  const file = path.join(dir, `${name}.config.json`);
  writeFileSync(file, JSON.stringify({ ...f.config, keys: { ...f.config.keys, withScopes } }));
  return file;
}

const runArgs = (config: string, reportDir: string) => [
  "run", "--config", config, "--max-examples", "3", "--seed", "1", "--checks", "all", "--exclude-checks", "webhook_signature_conformance",
  ...OPERATIONS.flatMap((id) => ["--include-operation-id", id]), "--report", "json,junit", "--report-dir", reportDir,
];

let correct: Fixture;
let broken: Fixture;
beforeAll(async () => {
  [correct, broken] = await Promise.all([startPlatform(), startPlatform(missingRequiredField.patch)]);
});
afterAll(async () => {
  await Promise.all([correct, broken].map((f) => f?.server.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe("platform-conformance run", () => {
  test("exits 0 on the correct fixture and writes reports that parse", async () => {
    const reportDir = path.join(dir, "correct");
    const r = await cli(...runArgs(await configFile(correct, "correct"), reportDir));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+ passed, 0 failed$/m);
    const report = JSON.parse(readFileSync(path.join(reportDir, "report.json"), "utf8")) as JsonReport;
    expect(report.failures).toEqual([]);
    const xml = readFileSync(path.join(reportDir, "junit.xml"), "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => ["testsuite", "testcase"].includes(name) }).parse(xml);
    const suites = doc.testsuites.testsuite as { "@_name": string; testcase: { failure?: unknown }[] }[];
    // The stateful phase also reaches operations linked to the included ones.
    expect(suites.map((s) => s["@_name"])).toEqual(expect.arrayContaining(OPERATIONS));
    expect(suites.flatMap((s) => s.testcase).filter((c) => c.failure !== undefined)).toEqual([]);
  });

  test("exits 1 on a broken server; JUnit has the failure; replay re-runs it and exits 1", async () => {
    const reportDir = path.join(dir, "broken");
    const r = await cli(...runArgs(await configFile(broken, "broken"), reportDir));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^\d+ passed, [1-9]\d* failed$/m);
    const report = JSON.parse(readFileSync(path.join(reportDir, "report.json"), "utf8")) as JsonReport;
    expect(report.failures.map((f) => `${f.check} ${f.operation}`)).toContain("response_schema_conformance createMailbox");
    const xml = readFileSync(path.join(reportDir, "junit.xml"), "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => ["testsuite", "testcase"].includes(name) }).parse(xml);
    const failing = (doc.testsuites.testsuite as { testcase: { "@_classname": string; "@_name": string; failure?: unknown }[] }[])
      .flatMap((s) => s.testcase)
      .filter((c) => c.failure !== undefined)
      .map((c) => `${c["@_name"]} ${c["@_classname"]}`);
    expect(failing).toContain("response_schema_conformance createMailbox");

    const again = await cli("replay", path.join(reportDir, "report.json"));
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/STILL FAILING response_schema_conformance createMailbox/);
    expect(again.stdout).toMatch(/, [1-9]\d* still failing$/m);
  });

  test.each([
    ["a --spec that does not exist", (config: string) => ["--spec", path.join(dir, "no-such-spec.json"), "--config", config]],
    ["a --spec that is not a contract", () => ["--spec", CLI, "--base-url", "http://127.0.0.1:9"]],
    ["a config file that does not exist", () => ["--config", path.join(dir, "no-such.config.json")]],
    ["a config file that is not JSON", () => ["--config", CLI]],
    ["an unknown flag", (config: string) => ["--config", config, "--no-such-flag"]],
    ["a bad --max-examples", (config: string) => ["--config", config, "--max-examples", "many"]],
  ])("exits 2 on %s", async (_name, args) => {
    const r = await cli("run", ...args(await configFile(correct, "usage")));
    expect(r.code).toBe(2);
    expect(r.stderr).not.toBe("");
  });
});
