// Ctrl-C or SIGTERM during a run: the CLI stops sending, then prints and writes what ran so far,
// marked interrupted, and exits 130 (SIGINT) or 143 (SIGTERM). Outside a terminal a long phase
// prints progress lines while it runs. A real child process runs the CLI against a slow server
// (every answer held back), and the test sends it the signal the way a shell or CI does.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { startTiny, TINY_CONTRACT, type TinyServer } from "./fixtures/tiny-api.ts";
import type { JsonReport } from "./reports/json.ts";

const CLI = path.resolve(import.meta.dirname, "cli.ts");
const dir = mkdtempSync(path.join(os.tmpdir(), "conformance-interrupt-"));
const contractFile = path.join(dir, "tiny.json");
writeFileSync(contractFile, JSON.stringify(TINY_CONTRACT));

let api: TinyServer | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  await api?.close();
  api = undefined;
});

/** Resolves once `predicate` holds, polling (the child works at its own pace). */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 50));
}

describe.each([
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)("%s during a run", (signal, exitCode) => {
  test(`stops sending, prints and writes the partial report, exits ${exitCode}`, async () => {
    // Each answer takes 150 ms: a run of 2 operations x 500 examples would take minutes.
    api = await startTiny((_req, res) => void setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"items":[]}'), 150));
    const reportDir = path.join(dir, signal);
    child = spawn(process.execPath, [CLI, "run", contractFile, "--url", api.url, "-n", "500", "--seed", "1", "--report", "json,junit,html", "--report-dir", reportDir], {
      // stdout is a pipe, not a terminal: progress comes as lines; 200 ms instead of 10 s here.
      env: { ...process.env, PLATFORM_CONFORMANCE_PROGRESS_MS: "200" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (c) => (stdout += c));
    child.stderr!.on("data", (c) => (stderr += c));
    const exited = new Promise<number | null>((r) => child!.on("exit", (code) => r(code)));
    const server = api;
    await until(() => server.received.length >= 8 && /^progress: phase \w+, \d+\/2 operations done, \d+ requests, \d+ s$/m.test(stdout));
    const atSignal = server.received.length;
    child.kill(signal);
    const code = await exited;
    expect(stderr).toMatch(new RegExp(`${signal}: stopping`));
    expect(code).toBe(exitCode);
    // Stop sending: at most the requests already on their way (2 workers) arrive after the signal.
    expect(server.received.length - atSignal).toBeLessThanOrEqual(2);
    expect(stdout).toMatch(new RegExp(`^INTERRUPTED by ${signal} after \\d+ requests in [\\d.]+ s \\(phases [a-z, ]+\\): the results below cover what ran until then$`, "m"));
    expect(stdout).toMatch(/^operations exercised: \d\/2; requests: \d+;/m);
    expect(stdout.trimEnd().split("\n").pop()).toMatch(/^\d+ passed, \d+ failed/);
    const report: JsonReport = JSON.parse(readFileSync(path.join(reportDir, "report.json"), "utf8"));
    expect(report.interrupted).toBe(signal);
    // Every request answered before the signal is in the report; the (at most 2) aborted are not.
    expect(report.requests).toBeGreaterThanOrEqual(atSignal - 2);
    expect(report.requests).toBeLessThanOrEqual(server.received.length);
    expect(report.warnings.some((w) => w.startsWith(`interrupted (${signal}) during the `))).toBe(true);
    expect(report.summary.passed).toBeGreaterThan(0);
    expect(readFileSync(path.join(reportDir, "junit.xml"), "utf8")).toMatch(new RegExp(`<testsuites name="platform-conformance \\(interrupted by ${signal}, partial\\)"`));
    expect(readFileSync(path.join(reportDir, "report.html"), "utf8")).toMatch(new RegExp(`INTERRUPTED \\(${signal}\\), partial`));
  });
});
