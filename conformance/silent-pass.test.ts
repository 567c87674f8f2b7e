// Issue 39 item 3: no silent pass. --strict-coverage fails an operation that got no request (its
// body cannot be drawn), a run that judged nothing exits 1 and says why, and a contract with
// nothing to test warns. Item 7: --report-dir without --report writes the reports.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, writeContract } from "./fixtures/run-on.ts";
import { startRecordingServer, type RecordingServer } from "./fixtures/recording-server.ts";

const CLI = path.resolve(import.meta.dirname, "cli.ts");
const ok = { "200": { description: "ok", content: json({ type: "object" }) } };
const doc = {
  openapi: "3.1.0",
  info: { title: "silent", version: "1" },
  paths: {
    "/things": {
      get: { operationId: "listThings", responses: ok },
      // A pattern no string matches: no body can ever be drawn, so this operation gets no request.
      post: { operationId: "createThing", requestBody: { required: true, content: json({ type: "object", required: ["code"], properties: { code: { type: "string", pattern: "^(?!)$" } } }) }, responses: ok },
    },
  },
};
const webhooksOnly = {
  openapi: "3.1.0",
  info: { title: "hooks", version: "1" },
  webhooks: { thingCreated: { post: { requestBody: { content: json({ type: "object" }) }, responses: { "200": { description: "ok" } } } } },
};

let server: RecordingServer;
beforeAll(async () => void (server = await startRecordingServer(() => ({ status: 200, body: {} }))));
afterAll(() => server.close());

async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("no silent pass", () => {
  it.each([
    ["--strict-coverage fails an operation that got no request", ["--strict-coverage"], 1, /FAIL success_coverage \[high\] createThing: Operation never tested/],
    ["without it, the same is a warning", [], 0, /WARNING success_coverage createThing: no request was sent/],
  ])("%s", async (_name, extra, code, output) => {
    const spec = await writeContract(doc);
    const r = await cli("run", spec, "--url", server.url, "-n", "3", "--seed", "1", "--checks", "not_a_server_error,success_coverage", ...extra);
    expect(r.stdout).toMatch(output);
    expect(r.code).toBe(code);
  });

  it("a run that judged nothing (its only operation got no request) exits 1 and says why", async () => {
    const spec = await writeContract(doc);
    const r = await cli("run", spec, "--url", server.url, "-n", "3", "--include-operation-id", "createThing", "--checks", "not_a_server_error");
    expect(r.stdout).toMatch(/^NOTHING CHECKED: no request was sent to the 1 selected operations: no case could be drawn \(see the warnings\); this run is not a pass$/m);
    expect(r.stdout).toMatch(/^0 passed, 0 failed$/m);
    expect(r.code).toBe(1);
  });

  it("a contract with nothing to test (webhooks only) warns and is not a pass", async () => {
    const spec = await writeContract(webhooksOnly);
    const r = await cli("run", spec, "--url", server.url);
    expect(r.stdout).toMatch(/^WARNING the contract has no operations to test \(no paths; 1 webhooks\)$/m);
    expect(r.stdout).toMatch(/^NOTHING CHECKED: the contract has no operations \(paths\) to test/m);
    expect(r.code).toBe(1);
  });

  it("--report-dir without --report writes every report", async () => {
    const spec = await writeContract(doc);
    const dir = await mkdtemp(path.join(tmpdir(), "report-dir-"));
    await cli("run", spec, "--url", server.url, "-n", "2", "--include-operation-id", "listThings", "--report-dir", dir);
    expect(["report.json", "junit.xml", "report.html"].filter((f) => existsSync(path.join(dir, f)))).toEqual(["report.json", "junit.xml", "report.html"]);
  });
});
