// Schemathesis 4.x's way of calling it (`st run SCHEMA --url URL -H ... -c ... --phases ... -n N
// --seed N --report ...`) works here for every option the README calls compatible, on a contract
// that is not this repository's: the positional contract used to be ignored silently, and this
// repository's own contract tested instead.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTiny, TINY_CONTRACT, type TinyServer } from "./fixtures/tiny-api.ts";
import type { JsonReport } from "./reports/json.ts";

const CLI = path.resolve(import.meta.dirname, "cli.ts");
const dir = mkdtempSync(path.join(os.tmpdir(), "conformance-compat-"));
const contractFile = path.join(dir, "tiny.json");
writeFileSync(contractFile, JSON.stringify(TINY_CONTRACT));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { timeout: 60_000, cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

let api: TinyServer;
beforeAll(async () => {
  // The same server serves the API, its contract at /openapi.json, and 404 at /missing.json.
  api = await startTiny((req, res) => {
    if (req.url === "/openapi.json") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...TINY_CONTRACT, servers: [{ url: "/" }] }));
    if (req.url === "/missing.json") return res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
    if (req.url === "/swagger.json") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ swagger: "2.0", info: { title: "s", version: "1" }, paths: {} }));
    res.writeHead(200, { "content-type": "application/json" }).end('{"items":[]}');
  });
});
afterAll(() => api.close());

describe("Schemathesis 4.x command lines", () => {
  test("run CONTRACT --url URL -H -c --phases -n --seed --report: the positional contract is the one tested", async () => {
    const reportDir = path.join(dir, "r1");
    const r = await cli("run", contractFile, "--url", api.url, "-H", "X-Api-Token: tok-123", "-c", "not_a_server_error,status_code_conformance", "--phases", "examples,coverage", "-n", "3", "--seed", "7", "--report", "json,junit", "--report-dir", reportDir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report: JsonReport = JSON.parse(readFileSync(path.join(reportDir, "report.json"), "utf8"));
    expect(report.spec).toBe(contractFile);
    expect(report.coverage.map((c) => c.operationId).sort()).toEqual(["getGadget", "listGadgets"]);
    expect(report.checks).toEqual(["not_a_server_error", "status_code_conformance"]);
    expect(report.phases).toEqual(["examples", "coverage"]);
    expect(report.seed).toBe(7);
    expect(readFileSync(path.join(reportDir, "junit.xml"), "utf8")).toMatch(/<testsuites name="platform-conformance"/);
    const sent = api.received.filter((q) => q.url.startsWith("/gadgets"));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((q) => q.headers["x-api-token"] === "tok-123")).toBe(true);
    expect(r.stdout).toMatch(new RegExp(`^contract: ${contractFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
  });

  test("--max-examples bounds the fuzzing phase per operation; -u is --url", async () => {
    const before = api.received.length;
    const r = await cli("run", contractFile, "-u", api.url, "-c", "not_a_server_error", "--phases", "fuzzing", "--max-examples", "4", "--seed", "1", "--mode", "positive");
    expect(r.code).toBe(0);
    // 2 operations, at most 4 cases each (no shrinking: nothing fails).
    const sent = api.received.length - before;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(8);
  });

  test("a contract URL: loaded from there, and without --url its server is the base URL", async () => {
    const before = api.received.length;
    const r = await cli("run", `${api.url}/openapi.json`, "-c", "not_a_server_error", "--phases", "examples,coverage", "-n", "2", "--seed", "1");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^server: +${api.url}$`, "m"));
    expect(api.received.slice(before).some((q) => q.url.startsWith("/gadgets"))).toBe(true);
  });

  test("--help after the program name prints the usage", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: platform-conformance run \[CONTRACT\] --url URL/);
    }
  });

  test("an unknown option is refused, listing the known ones", async () => {
    const r = await cli("run", contractFile, "--url", api.url, "--hypothesis-max-examples", "5");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option --hypothesis-max-examples; known options: .*-u\/--url.*-n\/--max-examples.*--seed/);
  });

  test("a contract URL answering 404 says so", async () => {
    const r = await cli("run", `${api.url}/missing.json`, "--url", api.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/contract URL .*\/missing\.json answered 404 Not Found/);
    expect(r.stderr).not.toMatch(/JSON/);
  });

  test("Swagger 2.0 is refused naming 2.0 and a converter, from a URL and from a file", async () => {
    const file = path.join(dir, "swagger.yaml");
    writeFileSync(file, "swagger: '2.0'\ninfo:\n  title: s\n  version: '1'\npaths: {}\n");
    for (const location of [`${api.url}/swagger.json`, file]) {
      const r = await cli("run", location, "--url", api.url);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/is Swagger 2\.0; this suite reads OpenAPI 3\.0 and 3\.1.*swagger2openapi/);
    }
  });

  test("a report format this suite does not write is refused before anything is sent", async () => {
    const before = api.received.length;
    const r = await cli("run", contractFile, "--url", api.url, "--report", "har");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown report "har": this suite writes junit, json, html \(Schemathesis' har is not supported\)/);
    expect(api.received.length).toBe(before);
  });

  test("two different contracts are refused", async () => {
    const r = await cli("run", contractFile, "--spec", path.join(dir, "other.json"), "--url", api.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/two contracts given/);
  });
});
