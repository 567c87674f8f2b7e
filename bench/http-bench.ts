// HTTP reads: GET /v1/mailboxes on the full platform (auth, rate limit, SQLite, validation,
// serialization) against a bare fastify route answering the same JSON, and the same platform on
// PostgreSQL against the same baseline when a database URL is given. Part of `npm run bench`;
// alone (a quick run while working on the request path):
//   node bench/http-bench.ts [--rounds 5] [--duration 5] [--connections 10]
//                                   [--skip-postgres] [--cpu-prof DIR]
// `--cpu-prof DIR` writes each server thread's profile of the measured rounds to DIR.
import { fileURLToPath } from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import fastify from "fastify";
import { autocannon, compareWithBare, runAlone, serveFromWorker, type BareComparisonOptions, type Ready, type Target } from "./worker-target.ts";

async function serve(target: Target, databaseUrl = "") {
  const { startTestPlatform } = await import("../server/test/harness.ts");
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

export interface HttpBenchOptions extends BareComparisonOptions {
  connections: number;
}

export async function benchmarkMailboxes({ connections, ...options }: HttpBenchOptions): Promise<void> {
  await compareWithBare(
    {
      heading: `HTTP reads: GET /v1/mailboxes, autocannon ${connections} connections, loopback`,
      file: new URL(import.meta.url),
      drive: drive(connections),
      labels: { bare: "bare fastify JSON route", platform: "platform GET /v1/mailboxes (SQLite)" },
      goal: 0.8,
      goalName: "HTTP reads, GET /v1/mailboxes / bare fastify route",
    },
    options,
  );
}

if (!isMainThread) {
  const { target, databaseUrl } = (workerData ?? {}) as { target?: Target; databaseUrl: string };
  if (target) await serveFromWorker(() => serve(target, databaseUrl));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runAlone(10, benchmarkMailboxes);
}
