#!/usr/bin/env node
// platform-conformance: `run` fuzzes an implementation against an OpenAPI contract; `replay`
// re-sends the failures of a JSON report. Exit codes follow Schemathesis: 0 all checks passed,
// 1 failures, 2 the contract, config or flags are unusable.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { ContractError } from "./engine/load-contract.ts";
import { ALL_PHASES, run, type RunOptions } from "./engine/runner.ts";
import type { Mode, Phase } from "./engine/types.ts";
import { renderCoverage, renderFailures, renderWarnings, summaryLine } from "./reports/console.ts";
import { htmlReport } from "./reports/html.ts";
import { jsonReport } from "./reports/json.ts";
import { junitReport } from "./reports/junit.ts";
import { replay } from "./replay.ts";

export const DEFAULT_SPEC = path.resolve(import.meta.dirname, "../generated/openapi/openapi.json");

const USAGE = `usage: platform-conformance run --base-url URL [options]
       platform-conformance replay REPORT.json [--base-url URL]
options: --spec FILE --config FILE --checks a,b --exclude-checks a,b --phases examples,coverage,fuzzing,stateful
  --mode positive|negative|all --include-path P --exclude-path P --include-operation-id ID --exclude-operation-id ID
  --include-tag T --exclude-tag T --max-examples N --seed N --max-failures N -H "Name: value" --rate-limit 100/m
  --workers N --report junit,json,html --report-dir DIR --strict-coverage (an operation that never reached a documented 2xx fails)`;

const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((s) => String(s).split(",")).map((s) => s.trim()).filter(Boolean);

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        "base-url": { type: "string", short: "u" }, spec: { type: "string" }, config: { type: "string" },
        checks: { type: "string", short: "c", multiple: true }, "exclude-checks": { type: "string", multiple: true },
        phases: { type: "string" }, mode: { type: "string", short: "m" },
        "include-path": { type: "string", multiple: true }, "exclude-path": { type: "string", multiple: true },
        "include-operation-id": { type: "string", multiple: true }, "exclude-operation-id": { type: "string", multiple: true },
        "include-tag": { type: "string", multiple: true }, "exclude-tag": { type: "string", multiple: true },
        "max-examples": { type: "string", short: "n" }, seed: { type: "string" }, "max-failures": { type: "string" },
        header: { type: "string", short: "H", multiple: true }, "rate-limit": { type: "string" }, workers: { type: "string", short: "w" },
        report: { type: "string" }, "report-dir": { type: "string" }, help: { type: "boolean", short: "h" },
        "strict-coverage": { type: "boolean" },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const v = parsed.values;
  if (v.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  try {
    if (command === "replay") {
      if (!parsed.positionals[0]) throw new ContractError("replay needs a report.json");
      return await replay(parsed.positionals[0], v["base-url"]);
    }
    if (command !== "run") throw new ContractError(`unknown command "${command}"\n${USAGE}`);
    const phases = v.phases ? (list(v.phases) as Phase[]) : ALL_PHASES;
    for (const p of phases) if (!ALL_PHASES.includes(p)) throw new ContractError(`unknown phase "${p}"`);
    const mode = (v.mode ?? "all") as Mode;
    if (!["positive", "negative", "all"].includes(mode)) throw new ContractError(`--mode must be positive, negative or all`);
    const int = (name: string, s: string | undefined) => {
      if (s === undefined) return undefined;
      if (!/^\d+$/.test(s)) throw new ContractError(`--${name} must be a non-negative integer`);
      return Number(s);
    };
    const headers: Record<string, string> = {};
    for (const h of v.header ?? []) {
      const i = h.indexOf(":");
      if (i < 1) throw new ContractError(`-H expects "Name: value", got "${h}"`);
      headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
    }
    const { loadConfig } = await import("./engine/config.ts");
    const cfg = await loadConfig(v.config);
    const baseUrl = v["base-url"] ?? cfg.baseUrl;
    if (!baseUrl) throw new ContractError("--base-url is required (or baseUrl in the config)");
    const spec = v.spec ?? cfg.spec ?? DEFAULT_SPEC;
    const tty = process.stderr.isTTY;
    const opts: RunOptions = {
      spec, baseUrl, config: v.config, checks: list(v.checks), excludeChecks: list(v["exclude-checks"]), phases, mode,
      includePath: v["include-path"], excludePath: v["exclude-path"], includeOperationId: list(v["include-operation-id"]),
      excludeOperationId: list(v["exclude-operation-id"]), includeTag: v["include-tag"], excludeTag: v["exclude-tag"],
      maxExamples: int("max-examples", v["max-examples"]), seed: int("seed", v.seed), maxFailures: int("max-failures", v["max-failures"]),
      headers, rateLimit: v["rate-limit"], workers: int("workers", v.workers), strictCoverage: Boolean(v["strict-coverage"]),
      onProgress(phase, done, total) {
        if (tty) {
          const width = 30;
          const filled = total ? Math.round((done / total) * width) : width;
          process.stderr.write(`\r${phase.padEnd(9)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}${done === total ? "\n" : ""}`);
        } else if (done === total) console.log(`phase ${phase}: ${total} operations done`);
      },
    };
    const result = await run(opts);
    const reports = list(v.report);
    if (reports.length) {
      const dir = path.resolve(v["report-dir"] ?? "conformance-report");
      await mkdir(dir, { recursive: true });
      const json = jsonReport(result, { spec, baseUrl });
      for (const kind of reports) {
        if (kind === "json") await writeFile(path.join(dir, "report.json"), JSON.stringify(json, null, 2));
        else if (kind === "junit") await writeFile(path.join(dir, "junit.xml"), junitReport(result));
        else if (kind === "html") await writeFile(path.join(dir, "report.html"), htmlReport(json));
        else throw new ContractError(`unknown report "${kind}" (junit, json, html)`);
      }
    }
    const failures = renderFailures(result);
    if (failures) console.log(failures);
    console.log(renderCoverage(result));
    const warnings = renderWarnings(result);
    if (warnings) console.log(warnings);
    console.log(summaryLine(result));
    return result.ledger.failures.length ? 1 : 0;
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
