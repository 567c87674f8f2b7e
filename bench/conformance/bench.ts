// npm run bench:conformance: how fast the suite drives a server, and how long a full default run
// takes on the reference server.
// 1. Requests per second the suite sends (all phases, default checks, a fixed --max-examples)
//    against a bare fastify server answering every route of the contract, next to autocannon
//    hitting the same server with one fixed request in the same run: the ratio says how much of
//    the server's capacity the suite's own work (generation, validation, checks) leaves unused.
// 2. Wall time of `--max-examples 100` over all 43 operations on the reference server, started
//    as `npm run conformance:reference` starts it, with the time spent in each phase.
// Loopback only; bounded by counts and a deadline.
import { createRequire } from "node:module";
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
const autocannon = createRequire(import.meta.url)("autocannon") as (opts: object) => Promise<CannonResult>;

const { values: args } = parseArgs({
  options: {
    "max-examples": { type: "string", default: "100" },
    "full-max-examples": { type: "string", default: "100" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    "skip-reference": { type: "boolean", default: false },
    "deadline-s": { type: "string", default: "600" },
  },
});
const deadline = setTimeout(() => {
  console.error(`bench:conformance: over the ${args["deadline-s"]} s deadline, stopping`);
  process.exit(1);
}, Number(args["deadline-s"]) * 1000);

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

const bare = await startBareServer();
try {
  const phases = perPhase();
  const suite = await run({ spec: CONTRACT_PATH, baseUrl: bare.url, maxExamples: Number(args["max-examples"]), seed: 1, onProgress: phases.onProgress });
  const cannon = await autocannon({ url: `${bare.url}${bare.fixedPath}`, duration: Number(args.duration), connections: Number(args.connections) });
  console.log(`bare fastify, ${bare.routes} routes, one fixed valid body each`);
  console.log(`  suite (--max-examples ${args["max-examples"]}, all phases, default checks, 2 workers): ${suite.ledger.requests} requests in ${(suite.durationMs / 1000).toFixed(1)} s = ${Math.round(rps(suite))} req/s (${phases.describe()})`);
  console.log(`  autocannon 8.0.0 (GET ${bare.fixedPath}, ${args.connections} connections, ${args.duration} s): ${Math.round(cannon.requests.average)} req/s (${cannon.errors} errors, ${cannon.non2xx} non-2xx)`);
  console.log(`  ratio suite / autocannon: ${(rps(suite) / cannon.requests.average).toFixed(3)}`);
} finally {
  await bare.close();
}

if (!args["skip-reference"]) {
  const startedAt = Date.now();
  const reference = await startReference();
  const startup = Date.now() - startedAt;
  try {
    const phases = perPhase();
    const result = await run({ spec: CONTRACT_PATH, baseUrl: reference.baseUrl, config: reference.configFile, maxExamples: Number(args["full-max-examples"]), seed: 1, onProgress: phases.onProgress });
    const { passed, failed } = result.ledger.totals();
    console.log(`reference server (start and provisioning ${(startup / 1000).toFixed(1)} s, not counted)`);
    console.log(`  full default run, --max-examples ${args["full-max-examples"]}, ${result.operations.length} operations: ${(result.durationMs / 1000).toFixed(1)} s, ${result.ledger.requests} requests = ${Math.round(rps(result))} req/s; ${passed} passed, ${failed} failed`);
    console.log(`  per phase: ${phases.describe()}`);
  } finally {
    await reference.stop();
  }
}
clearTimeout(deadline);
