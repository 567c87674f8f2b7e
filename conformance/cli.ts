#!/usr/bin/env node
// platform-conformance: `run` fuzzes an implementation against an OpenAPI contract; `replay`
// re-sends the failures of a JSON report. Exit codes follow Schemathesis: 0 all checks passed,
// 1 failures (or nothing was checked at all: not a pass), 2 the contract, config or flags are unusable; 130/143 when Ctrl-C/SIGTERM stopped
// the run (what ran until then is still printed and written, marked interrupted).
// Flags follow Schemathesis 4.x's `st run SCHEMA --url URL ...` (conformance/README.md has the table).
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { checkContractLocation } from "./contract-location.ts";
import { ContractError } from "./engine/load-contract.ts";
import type { Ledger } from "./engine/ledger.ts";
import { ALL_PHASES, run, type RunOptions } from "./engine/runner.ts";
import type { Mode, Phase } from "./engine/types.ts";
import { interruptionLine, nothingCheckedLine, renderCoverage, renderFailures, renderWarnings, summaryLine } from "./reports/console.ts";
import { htmlReport } from "./reports/html.ts";
import { jsonReport } from "./reports/json.ts";
import { junitReport } from "./reports/junit.ts";
import { replay } from "./replay.ts";

export const DEFAULT_SPEC = path.resolve(import.meta.dirname, "../generated/openapi/openapi.json");

const USAGE = `usage: platform-conformance run [CONTRACT] --url URL [options]
       platform-conformance replay REPORT.json [--url URL]
CONTRACT: a file or URL of an OpenAPI 3.0/3.1 contract (default: this repository's generated/openapi/openapi.json)
options: -u, --url URL (also --base-url) --spec FILE (same as CONTRACT) --config FILE
  -c, --checks a,b --exclude-checks a,b --phases examples,coverage,fuzzing,stateful -m, --mode positive|negative|all
  --include-path P --exclude-path P --include-operation-id ID --exclude-operation-id ID --include-tag T --exclude-tag T
  -n, --max-examples N --seed N --max-failures N -H, --header "Name: value" --rate-limit 100/m -w, --workers N|auto
  --request-timeout SECONDS --report junit,json,html --report-dir DIR
  --strict-coverage (an operation that never reached a documented 2xx fails) -h, --help`;

const OPTIONS = {
  url: { type: "string", short: "u" }, "base-url": { type: "string" }, spec: { type: "string" }, config: { type: "string" },
  checks: { type: "string", short: "c", multiple: true }, "exclude-checks": { type: "string", multiple: true },
  phases: { type: "string" }, mode: { type: "string", short: "m" },
  "include-path": { type: "string", multiple: true }, "exclude-path": { type: "string", multiple: true },
  "include-operation-id": { type: "string", multiple: true }, "exclude-operation-id": { type: "string", multiple: true },
  "include-tag": { type: "string", multiple: true }, "exclude-tag": { type: "string", multiple: true },
  "max-examples": { type: "string", short: "n" }, seed: { type: "string" }, "max-failures": { type: "string" },
  header: { type: "string", short: "H", multiple: true }, "rate-limit": { type: "string" }, workers: { type: "string", short: "w" },
  "request-timeout": { type: "string" }, report: { type: "string" }, "report-dir": { type: "string" }, help: { type: "boolean", short: "h" },
  "strict-coverage": { type: "boolean" },
} satisfies ParseArgsConfig["options"];

const KNOWN = Object.entries(OPTIONS).map(([name, o]) => ("short" in o ? `-${o.short}/--${name}` : `--${name}`)).join(", ");
const REPORTS = ["junit", "json", "html"];
const EXIT_ON_SIGNAL: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
/** Outside a terminal, a line at least this often while a phase runs (CI kills silent jobs). */
const PROGRESS_EVERY_MS = Number(process.env.PLATFORM_CONFORMANCE_PROGRESS_MS) || 10_000;

const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((s) => String(s).split(",")).map((s) => s.trim()).filter(Boolean);

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `platform-conformance --help`, as `st --help`: the usage, not "unknown command".
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const e = error as Error & { code?: string };
    const unknown = e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'([^']+)'/.exec(e.message)?.[1] : undefined;
    console.error(unknown ? `error: unknown option ${unknown}; known options: ${KNOWN}` : `error: ${e.message}\n${USAGE}`);
    return 2;
  }
  const v = parsed.values;
  if (v.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  try {
    const baseUrlFlag = v.url ?? v["base-url"];
    if (v.url && v["base-url"] && v.url !== v["base-url"]) throw new ContractError(`--url and --base-url name different servers (${v.url}, ${v["base-url"]})`);
    if (command === "replay") {
      if (!parsed.positionals[0]) throw new ContractError("replay needs a report.json");
      return await replay(parsed.positionals[0], baseUrlFlag);
    }
    if (command !== "run") throw new ContractError(`unknown command "${command}" (run, replay)\n${USAGE}`);
    if (parsed.positionals.length > 1) throw new ContractError(`one contract per run, got ${parsed.positionals.join(", ")}`);
    const positional = parsed.positionals[0];
    if (positional && v.spec && positional !== v.spec) throw new ContractError(`two contracts given: ${positional} and --spec ${v.spec}`);
    const phases = v.phases ? (list(v.phases) as Phase[]) : ALL_PHASES;
    for (const p of phases) if (!ALL_PHASES.includes(p)) throw new ContractError(`unknown phase "${p}" (${ALL_PHASES.join(", ")})`);
    const mode = (v.mode ?? "all") as Mode;
    if (!["positive", "negative", "all"].includes(mode)) throw new ContractError(`--mode must be positive, negative or all`);
    const int = (name: string, s: string | undefined) => {
      if (s === undefined) return undefined;
      if (!/^\d+$/.test(s)) throw new ContractError(`--${name} must be a non-negative integer`);
      return Number(s);
    };
    const workers = v.workers === "auto" ? os.availableParallelism() : int("workers", v.workers);
    let requestTimeoutMs: number | undefined;
    if (v["request-timeout"] !== undefined) {
      const seconds = Number(v["request-timeout"]);
      if (!(seconds > 0)) throw new ContractError(`--request-timeout must be a positive number of seconds`);
      requestTimeoutMs = Math.round(seconds * 1000);
    }
    // --report-dir alone asks for reports: all of them, rather than silently none (issue 39 item 7).
    const reports = v.report === undefined && v["report-dir"] !== undefined ? [...REPORTS] : list(v.report);
    for (const kind of reports) {
      // Checked before the run, not after minutes of it.
      if (!REPORTS.includes(kind)) throw new ContractError(`unknown report "${kind}": this suite writes ${REPORTS.join(", ")}${["har", "vcr", "ndjson"].includes(kind) ? ` (Schemathesis' ${kind} is not supported)` : ""}`);
    }
    const headers: Record<string, string> = {};
    for (const h of v.header ?? []) {
      const i = h.indexOf(":");
      if (i < 1) throw new ContractError(`-H expects "Name: value", got "${h}"`);
      headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
    }
    const { loadConfig } = await import("./engine/config.ts");
    const cfg = await loadConfig(v.config);
    const spec = positional ?? v.spec ?? cfg.spec ?? DEFAULT_SPEC;
    // A 404 for a contract URL, or a Swagger 2.0 document, is said as such before anything runs.
    const location = await checkContractLocation(spec);
    const baseUrl = baseUrlFlag ?? cfg.baseUrl ?? location.baseUrl;
    if (!baseUrl) throw new ContractError("--url is required for a contract read from a file (or baseUrl in the config)");
    console.log(`contract: ${spec}${spec === DEFAULT_SPEC ? " (default: this repository's contract)" : ""}\nserver:   ${baseUrl}`);

    const tty = process.stderr.isTTY;
    const controller = new AbortController();
    let ledger: Ledger | undefined;
    let last = { phase: "" as string, done: 0, total: 0 };
    const started = Date.now();
    const onSignal = (signal: NodeJS.Signals) => {
      // A second Ctrl-C does not wait for the report.
      if (controller.signal.aborted) process.exit(EXIT_ON_SIGNAL[signal] ?? 1);
      console.error(`\n${signal}: stopping, then writing the report of what ran so far (again to quit at once)`);
      controller.abort(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    const ticker = tty
      ? undefined
      : setInterval(() => {
          if (!last.phase || !ledger) return;
          console.log(`progress: phase ${last.phase}, ${last.done}/${last.total} operations done, ${ledger.requests} requests, ${Math.round((Date.now() - started) / 1000)} s`);
        }, PROGRESS_EVERY_MS);
    ticker?.unref();
    const opts: RunOptions = {
      spec, baseUrl, config: v.config, checks: list(v.checks), excludeChecks: list(v["exclude-checks"]), phases, mode,
      includePath: v["include-path"], excludePath: v["exclude-path"], includeOperationId: list(v["include-operation-id"]),
      excludeOperationId: list(v["exclude-operation-id"]), includeTag: v["include-tag"], excludeTag: v["exclude-tag"],
      maxExamples: int("max-examples", v["max-examples"]), seed: int("seed", v.seed), maxFailures: int("max-failures", v["max-failures"]),
      headers, rateLimit: v["rate-limit"], workers, strictCoverage: Boolean(v["strict-coverage"]), requestTimeoutMs,
      signal: controller.signal,
      onStart: (l) => void (ledger = l),
      onProgress(phase, done, total) {
        last = { phase, done, total };
        if (tty) {
          const width = 30;
          const filled = total ? Math.round((done / total) * width) : width;
          process.stderr.write(`\r${phase.padEnd(9)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}${done === total ? "\n" : ""}`);
        } else if (done === total) console.log(`phase ${phase}: ${total} operations done`);
      },
    };
    let result;
    try {
      result = await run(opts);
    } finally {
      if (ticker) clearInterval(ticker);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    if (tty && result.interrupted) process.stderr.write("\n");
    if (reports.length) {
      const dir = path.resolve(v["report-dir"] ?? "conformance-report");
      await mkdir(dir, { recursive: true });
      const json = jsonReport(result, { spec, baseUrl });
      for (const kind of reports) {
        if (kind === "json") await writeFile(path.join(dir, "report.json"), JSON.stringify(json, null, 2));
        else if (kind === "junit") await writeFile(path.join(dir, "junit.xml"), junitReport(result));
        else if (kind === "html") await writeFile(path.join(dir, "report.html"), htmlReport(json));
      }
    }
    const failures = renderFailures(result);
    if (failures) console.log(failures);
    console.log(renderCoverage(result));
    const warnings = renderWarnings(result);
    if (warnings) console.log(warnings);
    if (result.interrupted) console.log(interruptionLine(result));
    if (result.nothingChecked) console.log(nothingCheckedLine(result));
    console.log(summaryLine(result));
    if (result.interrupted) return EXIT_ON_SIGNAL[result.interrupted] ?? 1;
    return result.ledger.failures.length || result.nothingChecked ? 1 : 0;
  } catch (error) {
    if (error instanceof ContractError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error) => {
      console.error(error);
      process.exitCode = 2;
    },
  );
}
