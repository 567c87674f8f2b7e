// HTTP reads: GET /v1/mailboxes on the full platform (auth, rate limit, SQLite, validation,
// serialization) against a bare fastify route answering the same JSON, and the same platform on
// PostgreSQL against the same baseline when a database URL is given. Part of `npm run bench`;
// alone (a quick run while working on the request path):
//   node server/bench/http-bench.ts [--rounds 5] [--duration 5] [--connections 10]
//                                   [--skip-postgres] [--cpu-prof DIR]
// `--cpu-prof DIR` writes each server thread's profile of the measured rounds to DIR.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMainThread, workerData } from "node:worker_threads";
import fastify from "fastify";
import { autocannon, formatGoal, formatTarget, loadLine, runRounds, serveFromWorker, startTargetWorker, type Ready, type TargetWorker } from "./worker-target.ts";

type Target = "bare" | "platform" | "postgres";

async function serve(target: Target, databaseUrl = "") {
  const { startTestPlatform } = await import("../test/harness.ts");
  const p = await startTestPlatform({ dns: { enabled: false, host: "127.0.0.1", port: 0 }, databaseUrl });
  // A key whose limit the benchmark never reaches, on a project with ten mailboxes.
  const t = await p.newTenant("bench", { rateLimit: 1_000_000_000 });
  for (let i = 0; i < 10; i++) await t.api("POST", "/v1/mailboxes", { name: `user${i}`, domain: t.domain, password: "correct horse" });
  const body = (await t.api("GET", "/v1/mailboxes")).body;
  if (target !== "bare") return { url: `${p.url}/v1/mailboxes`, key: t.key, close: () => p.stop() };
  await p.stop();
  const app = fastify();
  app.get("/v1/mailboxes", async () => body);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: `${url}/v1/mailboxes`, close: () => app.close() };
}

const drive = (connections: number) => (ready: Ready, duration: number) =>
  autocannon({ url: ready.url, duration, connections, headers: ready.key ? { authorization: `Bearer ${ready.key}` } : {} });

export interface HttpBenchOptions {
  duration: number;
  connections: number;
  rounds: number;
  databaseUrl?: string;
  cpuProfDir?: string;
}

export async function benchmarkMailboxes({ duration, connections, rounds, databaseUrl, cpuProfDir }: HttpBenchOptions): Promise<void> {
  const targets: Target[] = databaseUrl ? ["bare", "platform", "postgres"] : ["bare", "platform"];
  const servers = {} as Record<Target, TargetWorker>;
  console.log(`HTTP reads: GET /v1/mailboxes, autocannon ${connections} connections, ${rounds} interleaved rounds x ${duration} s per target, loopback; ${loadLine()} before`);
  try {
    for (const target of targets) {
      // A shared store takes its server key from the environment (decision P6), never from a file.
      const env = target === "postgres" ? { ...process.env, PLATFORM_SERVER_KEY: randomBytes(32).toString("base64") } : process.env;
      servers[target] = await startTargetWorker(new URL(import.meta.url), { httpTarget: target, databaseUrl: target === "postgres" ? databaseUrl : "" }, env);
    }
    const r = await runRounds(servers, drive(connections), { rounds, duration, cpuProfDir });
    console.log(formatTarget("bare fastify JSON route", r.bare));
    console.log(formatTarget("platform GET /v1/mailboxes (SQLite)", r.platform));
    if (r.postgres) console.log(formatTarget("platform on PostgreSQL", r.postgres));
    console.log(formatGoal("platform / bare", r.platform, r.bare, 0.8, "HTTP reads, GET /v1/mailboxes / bare fastify route"));
    if (r.postgres) console.log(formatGoal("PostgreSQL / bare", r.postgres, r.bare));
    if (r.postgres) console.log(formatGoal("PostgreSQL / SQLite", r.postgres, r.platform));
    console.log(`  ${loadLine()} after`);
  } finally {
    for (const s of Object.values(servers) as TargetWorker[]) s.stop();
  }
}

if (!isMainThread) {
  const { httpTarget, databaseUrl } = (workerData ?? {}) as { httpTarget?: Target; databaseUrl: string };
  if (httpTarget) await serveFromWorker(() => serve(httpTarget, databaseUrl));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: "10" },
      rounds: { type: "string", default: "5" },
      "skip-postgres": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
    },
  });
  const cpuProfDir = values["cpu-prof"];
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const postgres = values["skip-postgres"] ? undefined : await (await import("../../test/support/postgres.ts")).startPostgres();
  try {
    await benchmarkMailboxes({
      duration: Number(values.duration), connections: Number(values.connections), rounds: Number(values.rounds),
      databaseUrl: postgres && (await postgres.newDatabase()), cpuProfDir,
    });
  } finally {
    await postgres?.stop();
  }
}
