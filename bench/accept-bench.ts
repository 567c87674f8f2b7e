// Mail accept path: POST /v1/mail/send on the full platform (auth, rate limit, validation, the
// accept transaction with its relay job) against a bare fastify route inserting the same row into
// the same SQLite schema (WAL, synchronous=FULL: one fsync'd commit per request on both sides),
// autocannon at 50 connections; with a PostgreSQL URL, also the platform on PostgreSQL against the
// same bare route. Part of `npm run bench`; alone:
//   node bench/accept-bench.ts [--rounds 5] [--duration 5] [--connections 50]
//                                     [--skip-postgres] [--cpu-prof DIR]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import fastify from "fastify";
import { autocannon, compareWithBare, runAlone, serveFromWorker, type BareComparisonOptions, type Ready, type Target } from "./worker-target.ts";

const sendBody = (from: string) => JSON.stringify({ from, to: "bob@dest.test", subject: "Benchmark", text: "Hello from the accept path", campaign: "bench" });

async function serve(target: Target, databaseUrl = "") {
  if (target !== "bare") {
    const { startTestPlatform } = await import("../server/test/harness.ts");
    // The relay stays off: this measures accepting, not delivering.
    const p = await startTestPlatform({ dns: { enabled: false, host: "127.0.0.1", port: 0 }, databaseUrl }, { runWorker: false });
    const t = await p.newTenant("bench", { rateLimit: 1_000_000_000 });
    return { url: `${p.url}/v1/mail/send`, key: t.key, body: sendBody(`news@${t.domain}`), close: () => p.stop() };
  }
  const { openDatabase } = await import("../server/db/database.ts");
  const { newId } = await import("../server/ids.ts");
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

export interface AcceptBenchOptions extends BareComparisonOptions {
  connections?: number;
}

export async function benchmarkAccept({ connections = 50, ...options }: AcceptBenchOptions): Promise<void> {
  await compareWithBare(
    {
      heading: `Mail accept path: POST /v1/mail/send, autocannon ${connections} connections`,
      file: new URL(import.meta.url),
      drive: drive(connections),
      labels: { bare: "bare fastify route inserting the row", platform: "platform POST /v1/mail/send (SQLite)" },
      goal: 0.7,
      goalName: "mail accept, POST /v1/mail/send / bare insert route",
    },
    options,
  );
}

if (!isMainThread) {
  const { target, databaseUrl } = (workerData ?? {}) as { target?: Target; databaseUrl: string };
  if (target) await serveFromWorker(() => serve(target, databaseUrl));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runAlone(50, benchmarkAccept);
}
