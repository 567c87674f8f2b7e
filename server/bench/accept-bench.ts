// Mail accept path: POST /v1/mail/send on the full platform (auth, rate limit, validation, the
// accept transaction with its relay job) against a bare fastify route inserting the same row into
// the same SQLite schema (WAL, synchronous=FULL: one fsync'd commit per request on both sides),
// autocannon at 50 connections; with a PostgreSQL URL, also the platform on PostgreSQL against the
// same bare route. Part of `npm run bench`; alone:
//   node server/bench/accept-bench.ts [--rounds 5] [--duration 5] [--connections 50]
//                                     [--skip-postgres] [--cpu-prof DIR]
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMainThread, workerData } from "node:worker_threads";
import fastify from "fastify";
import { autocannon, formatGoal, formatTarget, loadLine, runRounds, serveFromWorker, startTargetWorker, type Ready, type TargetWorker } from "./worker-target.ts";

type Target = "bare" | "platform" | "postgres";

const sendBody = (from: string) => JSON.stringify({ from, to: "bob@dest.test", subject: "Benchmark", text: "Hello from the accept path", campaign: "bench" });

async function serve(target: Target, databaseUrl = "") {
  if (target !== "bare") {
    const { startTestPlatform } = await import("../test/harness.ts");
    // The relay stays off: this measures accepting, not delivering.
    const p = await startTestPlatform({ dns: { enabled: false, host: "127.0.0.1", port: 0 }, databaseUrl }, { runWorker: false });
    const t = await p.newTenant("bench", { rateLimit: 1_000_000_000 });
    return { url: `${p.url}/v1/mail/send`, key: t.key, body: sendBody(`news@${t.domain}`), close: () => p.stop() };
  }
  const { openDatabase } = await import("../db/database.ts");
  const { newId } = await import("../ids.ts");
  const dir = mkdtempSync(path.join(tmpdir(), "bench-bare-"));
  const db = openDatabase(dir);
  db.prepare("INSERT INTO projects (id, name, created_at) VALUES ('prj_bench', 'bench', ?)").run(new Date().toISOString());
  const insert = db.prepare(
    `INSERT INTO sent_messages (id, project_id, status, from_addr, to_addr, subject, text_body, campaign, stream, rfc_message_id, return_path, relay, relay_message_id, created_at, sent_at, updated_at)
     VALUES (?, 'prj_bench', 'sent', ?, ?, ?, ?, ?, 'transactional', ?, ?, 'relay', '1', ?, ?, ?)`,
  );
  const app = fastify();
  app.post("/v1/mail/send", async (request) => {
    const b = request.body as { from: string; to: string; subject: string; text: string; campaign: string };
    const id = newId("msg");
    const now = Date.now();
    insert.run(id, b.from, b.to, b.subject, b.text, b.campaign, `${id}@bench.test`, `bounces+${id}@bench.test`, now, now, now);
    return { id, status: "sent", relay: "relay", relayMessageId: "1" };
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: `${url}/v1/mail/send`, body: sendBody("news@bench.test"), close: async () => { await app.close(); db.close(); rmSync(dir, { recursive: true, force: true }); } };
}

const drive = (connections: number) => (r: Ready, duration: number) =>
  autocannon({ url: r.url, method: "POST", duration, connections, body: r.body, headers: { "content-type": "application/json", ...(r.key ? { authorization: `Bearer ${r.key}` } : {}) } });

export interface AcceptBenchOptions {
  duration: number;
  rounds: number;
  connections?: number;
  databaseUrl?: string;
  cpuProfDir?: string;
}

export async function benchmarkAccept({ duration, rounds, connections = 50, databaseUrl, cpuProfDir }: AcceptBenchOptions): Promise<void> {
  const targets: Target[] = databaseUrl ? ["bare", "platform", "postgres"] : ["bare", "platform"];
  const servers = {} as Record<Target, TargetWorker>;
  console.log(`Mail accept path: POST /v1/mail/send, autocannon ${connections} connections, ${rounds} interleaved rounds x ${duration} s per target; ${loadLine()} before`);
  try {
    for (const target of targets) {
      // A shared store takes its server key from the environment (decision P6), never from a file.
      const env = target === "postgres" ? { ...process.env, PLATFORM_SERVER_KEY: randomBytes(32).toString("base64") } : process.env;
      servers[target] = await startTargetWorker(new URL(import.meta.url), { acceptTarget: target, databaseUrl: target === "postgres" ? databaseUrl : "" }, env);
    }
    const r = await runRounds(servers, drive(connections), { rounds, duration, cpuProfDir });
    console.log(formatTarget("bare fastify route inserting the row", r.bare));
    console.log(formatTarget("platform POST /v1/mail/send (SQLite)", r.platform));
    if (r.postgres) console.log(formatTarget("platform on PostgreSQL", r.postgres));
    console.log(formatGoal("platform / bare", r.platform, r.bare, 0.7, "mail accept, POST /v1/mail/send / bare insert route"));
    if (r.postgres) console.log(formatGoal("PostgreSQL / bare", r.postgres, r.bare));
    if (r.postgres) console.log(formatGoal("PostgreSQL / SQLite", r.postgres, r.platform));
    console.log(`  ${loadLine()} after`);
  } finally {
    for (const s of Object.values(servers) as TargetWorker[]) s.stop();
  }
}

if (!isMainThread) {
  const { acceptTarget, databaseUrl } = (workerData ?? {}) as { acceptTarget?: Target; databaseUrl: string };
  if (acceptTarget) await serveFromWorker(() => serve(acceptTarget, databaseUrl));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: "50" },
      rounds: { type: "string", default: "5" },
      "skip-postgres": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
    },
  });
  const cpuProfDir = values["cpu-prof"];
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const postgres = values["skip-postgres"] ? undefined : await (await import("../../test/support/postgres.ts")).startPostgres();
  try {
    await benchmarkAccept({
      duration: Number(values.duration), rounds: Number(values.rounds), connections: Number(values.connections),
      databaseUrl: postgres && (await postgres.newDatabase()), cpuProfDir,
    });
  } finally {
    await postgres?.stop();
  }
}
