// npm run bench:conformance: how fast the suite drives a server, and how long a full default run
// takes on the reference server.
// 1. Requests per second the suite sends (all phases, default checks, a fixed --max-examples)
//    against a bare fastify server answering every route of the contract, next to autocannon
//    hitting the same server with one fixed request in the same run: the ratio says how much of
//    the server's capacity the suite's own work (generation, validation, checks) leaves unused.
// 2. Wall time of the `npm run conformance:reference` workload on the reference server (SQLite),
//    started and provisioned as that script does (not counted), `--repeat` times back to back
//    (default 3; the machine is shared): requests, mean response time, time per phase, load
//    average around each run, and the medians. `--skip-bare`, `--skip-reference`, `--workers N`.
// Loopback only; bounded by counts and a deadline.
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { run, type RunResult } from "../../conformance/engine/runner.ts";
import type { Phase } from "../../conformance/engine/types.ts";
import { CONTRACT_PATH } from "../../conformance/fixtures/platform.ts";
import { startReference } from "../../conformance/scripts/reference-server.ts";
import { startBareServer } from "./bare-server.ts";

interface CannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (
  opts: object,
) => Promise<CannonResult>;

const { values: args } = parseArgs({
  options: {
    "max-examples": { type: "string", default: "100" },
    "full-max-examples": { type: "string", default: "100" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    "skip-reference": { type: "boolean", default: false },
    "skip-bare": { type: "boolean", default: false },
    repeat: { type: "string", default: "3" },
    workers: { type: "string" },
    "deadline-s": { type: "string", default: "600" },
  },
});
const deadline = setTimeout(
  () => {
    console.error(`bench:conformance: over the ${args["deadline-s"]} s deadline, stopping`);
    process.exit(1);
  },
  Number(args["deadline-s"]) * 1000,
);

const perPhase = () => {
  const marks: [Phase, number][] = [];
  let last = Date.now();
  return {
    onProgress(phase: Phase, done: number, total: number) {
      if (done !== total) return;
      const now = Date.now();
      marks.push([phase, now - last]);
      last = now;
    },
    describe: () => marks.map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)} s`).join(", "),
  };
};
const rps = (r: RunResult) => r.ledger.requests / (r.durationMs / 1000);

if (!args["skip-bare"]) {
  const bare = await startBareServer();
  try {
    const phases = perPhase();
    const suite = await run({
      spec: CONTRACT_PATH,
      baseUrl: bare.url,
      maxExamples: Number(args["max-examples"]),
      seed: 1,
      onProgress: phases.onProgress,
    });
    const cannon = await autocannon({
      url: `${bare.url}${bare.fixedPath}`,
      duration: Number(args.duration),
      connections: Number(args.connections),
    });
    console.log(`bare fastify, ${bare.routes} routes, one fixed valid body each`);
    console.log(
      `  suite (--max-examples ${args["max-examples"]}, all phases, default checks, 2 workers): ${suite.ledger.requests} requests in ${(suite.durationMs / 1000).toFixed(1)} s = ${Math.round(rps(suite))} req/s (${phases.describe()})`,
    );
    console.log(
      `  autocannon 8.0.0 (GET ${bare.fixedPath}, ${args.connections} connections, ${args.duration} s): ${Math.round(cannon.requests.average)} req/s (${cannon.errors} errors, ${cannon.non2xx} non-2xx)`,
    );
    console.log(`  ratio suite / autocannon: ${(rps(suite) / cannon.requests.average).toFixed(3)}`);
  } finally {
    await bare.close();
  }
}

if (!args["skip-reference"]) {
  // The reference workload as `npm run conformance:reference` runs it (every check, strict
  // coverage, default --max-examples and workers), several times back to back: the machine is
  // shared, so the median is reported with the load average around each run.
  const runs: { ms: number; requests: number; latencyMs: number; load: string }[] = [];
  for (let i = 0; i < Number(args.repeat); i++) {
    const startedAt = Date.now();
    const reference = await startReference();
    const startup = Date.now() - startedAt;
    try {
      const phases = perPhase();
      const before = loadavg()[0];
      const result = await run({
        spec: CONTRACT_PATH,
        baseUrl: reference.baseUrl,
        config: reference.configFile,
        checks: ["all"],
        strictCoverage: true,
        maxExamples: Number(args["full-max-examples"]),
        workers: args.workers ? Number(args.workers) : undefined,
        onProgress: phases.onProgress,
      });
      const load = `${before.toFixed(1)} to ${loadavg()[0].toFixed(1)}`;
      const { passed, failed } = result.ledger.totals();
      const answered = [...result.ledger.latency.values()].reduce(
        (a, l) => ({ n: a.n + l.answered, ms: a.ms + l.ms }),
        { n: 0, ms: 0 },
      );
      const latencyMs = answered.ms / Math.max(1, answered.n);
      runs.push({ ms: result.durationMs, requests: result.ledger.requests, latencyMs, load });
      console.log(
        `reference server, run ${i + 1} (start and provisioning ${(startup / 1000).toFixed(1)} s, not counted; load average ${load})`,
      );
      console.log(
        `  conformance:reference workload (all checks, --strict-coverage, --max-examples ${args["full-max-examples"]}), ${result.operations.length} operations: ${(result.durationMs / 1000).toFixed(1)} s, ${result.ledger.requests} requests = ${Math.round(rps(result))} req/s, mean response time ${latencyMs.toFixed(1)} ms; ${passed} passed, ${failed} failed`,
      );
      console.log(`  per phase: ${phases.describe()}`);
    } finally {
      await reference.stop();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `median of ${runs.length}: ${(median(runs.map((r) => r.ms)) / 1000).toFixed(1)} s, ${median(runs.map((r) => r.requests))} requests, mean response time ${median(runs.map((r) => r.latencyMs)).toFixed(1)} ms (load ${runs.map((r) => r.load).join("; ")})`,
  );
}
clearTimeout(deadline);
