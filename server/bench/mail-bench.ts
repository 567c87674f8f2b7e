// Outgoing-mail benchmarks, each a ratio against a baseline measured in the same run:
// - accept path: POST /v1/mail/send on the full platform (auth, rate limit, validation, the
//   accept transaction with its relay job) against a bare fastify route inserting the same row
//   into the same SQLite schema (WAL, synchronous=FULL), autocannon at 50 connections; with a
//   PostgreSQL URL, also the platform on PostgreSQL against the same bare route;
// - relay (alone: `npm run bench:relay`): messages/s from the queue to a loopback sink, composed
//   and DKIM-signed, against nodemailer's pooled SMTP transport signing with the same key and
//   sending the same messages to the same sink (4 connections each: the relay's per-domain
//   concurrency), 5 interleaved rounds, the goal (issue 32) on the median of per-round ratios.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import fastify from "fastify";
import nodemailer from "nodemailer";

interface CannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (opts: object) => Promise<CannonResult>;

type Target = "bare" | "platform" | "postgres";
interface Ready {
  url: string;
  key?: string;
  body: string;
}

const sendBody = (from: string) => JSON.stringify({ from, to: "bob@dest.test", subject: "Benchmark", text: "Hello from the accept path", campaign: "bench" });

async function serve(target: Target, databaseUrl = ""): Promise<Ready & { close(): Promise<void> }> {
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

function startWorker(target: Target, databaseUrl?: string): Promise<{ worker: Worker; ready: Ready }> {
  // A shared store takes its server key from the environment (decision P6), never from a file.
  const env = databaseUrl ? { ...process.env, PLATFORM_SERVER_KEY: randomBytes(32).toString("base64") } : process.env;
  const worker = new Worker(new URL(import.meta.url), { workerData: { target, databaseUrl }, env });
  return new Promise((resolve, reject) => {
    worker.once("message", (ready: Ready) => resolve({ worker, ready }));
    worker.once("error", reject);
  });
}

const drive = (r: Ready, duration: number, connections: number) =>
  autocannon({ url: r.url, method: "POST", duration, connections, body: r.body, headers: { "content-type": "application/json", ...(r.key ? { authorization: `Bearer ${r.key}` } : {}) } });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function benchmarkAccept(duration = 5, rounds = 3, connections = 50, databaseUrl?: string) {
  const targets: Target[] = databaseUrl ? ["bare", "platform", "postgres"] : ["bare", "platform"];
  const servers = {} as Record<Target, { worker: Worker; ready: Ready }>;
  const rps: Record<Target, number[]> = { bare: [], platform: [], postgres: [] };
  const p99: Record<Target, number[]> = { bare: [], platform: [], postgres: [] };
  const failures: Record<Target, number> = { bare: 0, platform: 0, postgres: 0 };
  try {
    for (const target of targets) servers[target] = await startWorker(target, target === "postgres" ? databaseUrl : undefined);
    for (const target of targets) await drive(servers[target].ready, 1, connections);
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) {
        const r = await drive(servers[target].ready, duration, connections);
        rps[target].push(r.requests.average);
        p99[target].push(r.latency.p99);
        failures[target] += r.non2xx + r.errors;
      }
    }
  } finally {
    for (const s of Object.values(servers)) s.worker.postMessage("stop");
  }
  return {
    bare: median(rps.bare), platform: median(rps.platform), bareP99: median(p99.bare), platformP99: median(p99.platform),
    failures: failures.bare + failures.platform,
    rounds: rps,
    ...(databaseUrl ? { postgres: median(rps.postgres), postgresP99: median(p99.postgres), postgresFailures: failures.postgres } : {}),
  };
}

export const RELAY_GOAL = 0.8;

export interface RelayBench {
  messages: number;
  /** Messages per second of each round. */
  platform: number[];
  nodemailer: number[];
  /** Microseconds of this thread's CPU per message, median of rounds (the sink has a thread of its own). */
  platformCpuUs: number;
  nodemailerCpuUs: number;
  loadBefore: string;
  loadAfter: string;
}

/** The loopback sink in a thread of its own, so neither target's CPU or loop carries it. */
function startSinkThread(): Promise<{ port: number; received(): Promise<number>; stop(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { sink: true } });
  const ask = () => new Promise<number>((resolve) => {
    worker.once("message", resolve);
    worker.postMessage("count");
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ port, received: ask, stop: async () => void (await worker.terminate()) }));
    worker.once("error", reject);
  });
}

/**
 * Each round: `messages` accepted through the API (not measured), then delivered by the relay
 * from the queue to the sink (measured: load, compose, DKIM-sign, SMTP, record); then the same
 * messages, composed beforehand, through nodemailer's pool signing with the same key (measured).
 */
export async function benchmarkRelay(options: { messages?: number; rounds?: number; profile?: string } = {}): Promise<RelayBench> {
  const messages = options.messages ?? 400;
  const rounds = options.rounds ?? 5;
  const { startTestPlatform } = await import("../test/harness.ts");
  const { hostMailZone } = await import("../test/mail-zone.ts");
  const { composeMessage, SIGNED_HEADERS } = await import("../mail-sending/compose.ts");
  const { measure, PhaseProfiler } = await import("./phase-profile.ts");
  const { loadLine, median } = await import("./stats.ts");
  const sink = await startSinkThread();
  const p = await startTestPlatform({ relay: { name: "relay.bench.test", port: sink.port, allowLoopback: true } }, { runWorker: false });
  const profiler = new PhaseProfiler(options.profile);
  const result: RelayBench = { messages, platform: [], nodemailer: [], platformCpuUs: 0, nodemailerCpuUs: 0, loadBefore: loadLine(), loadAfter: "" };
  const cpu = { platform: [] as number[], nodemailer: [] as number[] };
  let transport: ReturnType<typeof nodemailer.createTransport> | undefined;
  try {
    const t = await p.newTenant("relaybench", { rateLimit: 1_000_000_000 });
    await hostMailZone(p.services, "dest.test");
    const domain = (await p.services.mailDomains.getByName(t.projectId, t.domain))!;
    transport = nodemailer.createTransport({
      pool: true, maxConnections: 4, host: "127.0.0.1", port: sink.port, name: "relay.bench.test", tls: { rejectUnauthorized: false },
      dkim: { domainName: domain.name, keySelector: domain.dkimSelector, privateKey: domain.dkimPrivateKey, headerFieldNames: SIGNED_HEADERS },
    } as never);
    const accept = async (count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 200) {
        const batch = Array.from({ length: Math.min(200, count - i) }, (_, k) => ({ to: `user${i + k}@dest.test`, vars: { n: i + k } }));
        const res = await t.api("POST", "/v1/mail/send-batch", { from: `news@${t.domain}`, subject: "Relay {{n}}", text: "Hello {{n}}", html: "<p>Hello {{n}}</p>", messages: batch });
        ids.push(...res.body.results.map((r: { id: string }) => r.id));
      }
      return ids;
    };
    const expectDelivered = async (before: number, count: number, who: string) => {
      const got = (await sink.received()) - before;
      if (got !== count) throw new Error(`${who}: the sink received ${got} of ${count}`);
    };
    // One round of each, not counted: connections open, code paths warm.
    for (let round = -1; round < rounds; round++) {
      const count = round < 0 ? 50 : messages;
      const ids = await accept(count);
      let before = await sink.received();
      const platform = await profiler.phase(() => measure(() => p.worker.drain()));
      await expectDelivered(before, count, "relay");
      const raws = await Promise.all(ids.map(async (id) => {
        const m = (await p.services.sentMessages.getForRelay(id))!;
        return { returnPath: m.returnPath, to: m.to, raw: await composeMessage(m) };
      }));
      before = await sink.received();
      const pool = transport;
      const bare = await measure(async () => {
        await Promise.all(raws.map(({ returnPath, to, raw }) => pool.sendMail({ envelope: { from: returnPath, to: [to] }, raw })));
        return raws.length;
      });
      await expectDelivered(before, count, "nodemailer");
      if (round < 0) continue;
      result.platform.push(platform.rate);
      result.nodemailer.push(bare.rate);
      cpu.platform.push(platform.cpuUs);
      cpu.nodemailer.push(bare.cpuUs);
    }
  } finally {
    transport?.close();
    profiler.write();
    await p.stop();
    await sink.stop();
  }
  return { ...result, platformCpuUs: median(cpu.platform), nodemailerCpuUs: median(cpu.nodemailer), loadAfter: (await import("./stats.ts")).loadLine() };
}

/** The lines `npm run bench` and `npm run bench:relay` print. */
export async function printRelayBench(r: RelayBench): Promise<void> {
  const { formatRatio, median } = await import("./stats.ts");
  console.log(`Mail relay: ${r.messages} DKIM-signed messages per round to a loopback sink (its own thread), 4 connections each, ${r.platform.length} interleaved rounds (${r.loadBefore})`);
  console.log(`  nodemailer pooled SMTP:             ${Math.round(median(r.nodemailer))} msg/s, ${Math.round(r.nodemailerCpuUs)} us CPU per message`);
  console.log(`  platform relay (queue to sink):     ${Math.round(median(r.platform))} msg/s, ${Math.round(r.platformCpuUs)} us CPU per message`);
  console.log(`  ratio ${formatRatio(r.platform, r.nodemailer, RELAY_GOAL)} (${r.loadAfter})`);
}

if (!isMainThread && (workerData as { target?: Target })?.target) {
  const { target, databaseUrl } = workerData as { target: Target; databaseUrl?: string };
  const server = await serve(target, databaseUrl);
  parentPort!.postMessage({ url: server.url, key: server.key, body: server.body });
  parentPort!.once("message", async () => {
    await server.close();
    process.exit(0);
  });
}

if (!isMainThread && (workerData as { sink?: boolean })?.sink) {
  const { startSmtpSink } = await import("../test/smtp-sink.ts");
  const sink = await startSmtpSink();
  // Only the count is asked for: the messages themselves are dropped as they come.
  let received = 0;
  const push = sink.messages.push.bind(sink.messages);
  sink.messages.push = (...m) => ((received += m.length), push(...m), (sink.messages.length = 0));
  parentPort!.on("message", () => parentPort!.postMessage(received));
  parentPort!.postMessage(sink.port);
}

// `npm run bench:relay` (node server/bench/mail-bench.ts [--rounds 5] [--messages 400] [--profile FILE]): the relay alone.
if (isMainThread && import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, messages: { type: "string", default: "400" }, profile: { type: "string" } } });
  await printRelayBench(await benchmarkRelay({ rounds: Number(values.rounds), messages: Number(values.messages), profile: values.profile }));
}
