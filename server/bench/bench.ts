// `npm run bench`: GET /v1/mailboxes on the full platform (auth, rate limit, SQLite, validation,
// serialization) against a bare fastify route answering the same JSON, in the same run, and the
// same platform on PostgreSQL (a throwaway loopback cluster, fsync on) against the same baseline
// (`--skip-postgres` leaves it out, also on the mail accept path); then the
// DNS server against a bare dns-packet responder and against NSD, PowerDNS and a bare dgram floor
// (server/dns/bench.ts, peers-bench.ts); then webhook deliveries
// against a bare undici POST loop (server/webhooks/bench.ts); then outgoing mail, inbound SMTP,
// the mailbox list, and DLP scanning and its cost on the send path (server/dlp/bench.ts). Each
// HTTP server runs in its own worker thread, so the autocannon client on the main thread does not
// share its loop.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import fastify from "fastify";

type Target = "bare" | "platform" | "postgres";
interface Ready {
  url: string;
  key?: string;
}
interface CannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (opts: object) => Promise<CannonResult>;

async function serve(target: Target, databaseUrl = ""): Promise<Ready & { close(): Promise<void> }> {
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

function startWorker(target: Target, databaseUrl?: string): Promise<{ worker: Worker; ready: Ready }> {
  // A shared store takes its server key from the environment (decision P6), never from a file.
  const env = databaseUrl ? { ...process.env, PLATFORM_SERVER_KEY: randomBytes(32).toString("base64") } : process.env;
  const worker = new Worker(new URL(import.meta.url), { workerData: { target, databaseUrl }, env });
  return new Promise((resolve, reject) => {
    worker.once("message", (ready: Ready) => resolve({ worker, ready }));
    worker.once("error", reject);
  });
}

async function drive(ready: Ready, duration: number, connections: number): Promise<CannonResult> {
  return autocannon({
    url: ready.url,
    duration,
    connections,
    headers: ready.key ? { authorization: `Bearer ${ready.key}` } : {},
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
// Ratios of targets measured back to back in one round: steadier than ratios of medians when
// the machine's load moves between rounds.
const perRound = (a: number[], b: number[]) => a.map((x, i) => (x / b[i]).toFixed(2)).join(", ");

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: "10" },
      rounds: { type: "string", default: "3" },
      "skip-dns": { type: "boolean", default: false },
      "skip-webhooks": { type: "boolean", default: false },
      "skip-http": { type: "boolean", default: false },
      "skip-mail": { type: "boolean", default: false },
      "skip-inbound": { type: "boolean", default: false },
      "skip-list": { type: "boolean", default: false },
      "skip-dlp": { type: "boolean", default: false },
      "skip-postgres": { type: "boolean", default: false },
    },
  });
  const [duration, connections, rounds] = [values.duration, values.connections, values.rounds].map(Number);
  // One cluster for the run; each platform on it gets a database of its own.
  const postgres = values["skip-postgres"] || (values["skip-http"] && values["skip-mail"]) ? undefined : await startBenchPostgres();
  try {
    await runBenchmarks(values, duration, connections, rounds, postgres);
  } finally {
    await postgres?.stop();
  }
}

async function startBenchPostgres() {
  const { startPostgres } = await import("../../test/support/postgres.ts");
  const cluster = await startPostgres();
  console.log("PostgreSQL 15: throwaway cluster on 127.0.0.1 (test/support/postgres.ts: fsync on, shared_buffers 16MB), pool of 10 per platform");
  return cluster;
}

type PostgresCluster = Awaited<ReturnType<typeof startBenchPostgres>>;

async function runBenchmarks(values: Record<string, string | boolean | undefined>, duration: number, connections: number, rounds: number, postgres: PostgresCluster | undefined): Promise<void> {
  if (!values["skip-http"]) await benchmarkMailboxes(duration, connections, rounds, postgres && (await postgres.newDatabase()));
  if (!values["skip-dns"]) {
    const { benchmarkDns, benchmarkDnsPeers } = await import("../dns/bench.ts");
    const dns = await benchmarkDns();
    console.log(`DNS benchmark: bare dns-packet ${Math.round(dns.bareQps)} qps, platform ${Math.round(dns.platformQps)} qps, ratio ${dns.ratio.toFixed(2)} (goal at least 0.7)${dns.lost ? `, ${dns.lost} lost` : ""}`);
    // Against NSD and PowerDNS through dnsperf, with the bare dgram floor (issue 32); a missing peer fails the run.
    const peers = await benchmarkDnsPeers({ rounds, seconds: duration });
    for (const line of peers.lines) console.log(line.startsWith(" ") ? line : `DNS ${line}`);
    if (!peers.ok) process.exitCode = 1;
  }
  if (!values["skip-webhooks"]) {
    const { benchmarkWebhooks, printWebhookBench } = await import("../webhooks/bench.ts");
    printWebhookBench(await benchmarkWebhooks({ rounds: Math.max(rounds, 5) }), 2000);
  }
  if (!values["skip-mail"]) {
    // Imported here, not at the top: its module starts a server when loaded in a worker thread.
    const { benchmarkAccept, benchmarkRelay, printRelayBench } = await import("./mail-bench.ts");
    const accept = await benchmarkAccept(duration, rounds, 50, postgres && (await postgres.newDatabase()));
    console.log(`Mail accept path: autocannon, 50 connections, ${rounds} x ${duration} s per target, median of rounds`);
    console.log(`  bare fastify route inserting the row: ${Math.round(accept.bare)} req/s (p99 ${accept.bareP99} ms)`);
    console.log(`  platform POST /v1/mail/send:         ${Math.round(accept.platform)} req/s (p99 ${accept.platformP99} ms)`);
    console.log(`  ratio ${(accept.platform / accept.bare).toFixed(2)} (goal at least 0.5)${accept.failures ? `; ${accept.failures} non-2xx or errors` : ""}`);
    if (accept.postgres !== undefined) {
      console.log(`  platform on PostgreSQL:              ${Math.round(accept.postgres)} req/s (p99 ${accept.postgresP99} ms)`);
      console.log(`  ratio ${(accept.postgres / accept.bare).toFixed(2)} to the same bare route${accept.postgresFailures ? `; ${accept.postgresFailures} non-2xx or errors` : ""}`);
      console.log(`  PostgreSQL / SQLite per round: ${perRound(accept.rounds.postgres, accept.rounds.platform)} (SQLite / bare per round: ${perRound(accept.rounds.platform, accept.rounds.bare)})`);
    }
    await printRelayBench(await benchmarkRelay({ rounds: Math.max(rounds, 5) }));
  }
  if (!values["skip-inbound"]) {
    // The platform, a private Postfix delivering to a Maildir and a bare smtp-server, all driven
    // by smtp-source at 10 and 40 connections (server/inbound/bench.ts, issue 32); its goals are
    // medians of per-round ratios over at least 5 rounds.
    const { benchmarkInbound, formatInbound } = await import("../inbound/bench.ts");
    const inbound = await benchmarkInbound({ seconds: duration, rounds: Math.max(rounds, 5) });
    for (const line of formatInbound(inbound, duration)) console.log(line);
  }
  if (!values["skip-list"]) {
    const { benchmarkMailboxList } = await import("../mailbox-reading/bench.ts");
    console.log(`Mailbox list benchmark: GET /v1/mailboxes/{id}/messages, 100,000 messages in one mailbox, autocannon ${connections} connections, ${duration} s each`);
    const rows = await benchmarkMailboxList({ seconds: duration, connections });
    const base = rows[0].rps;
    for (const r of rows) console.log(`  ${r.name.padEnd(26)} ${String(Math.round(r.rps)).padStart(6)} req/s  p99 ${r.p99} ms  (ratio to the empty mailbox ${(r.rps / base).toFixed(2)})`);
  }
  if (!values["skip-dlp"]) {
    const { runDlpBenchmarks } = await import("../dlp/bench.ts");
    await runDlpBenchmarks();
  }
}

async function benchmarkMailboxes(duration: number, connections: number, rounds: number, databaseUrl?: string): Promise<void> {
  const targets: Target[] = databaseUrl ? ["bare", "platform", "postgres"] : ["bare", "platform"];
  const servers = {} as Record<Target, { worker: Worker; ready: Ready }>;
  const rps: Record<Target, number[]> = { bare: [], platform: [], postgres: [] };
  const p99: Record<Target, number[]> = { bare: [], platform: [], postgres: [] };
  const failures: Record<Target, number> = { bare: 0, platform: 0, postgres: 0 };
  try {
    for (const target of targets) servers[target] = await startWorker(target, target === "postgres" ? databaseUrl : undefined);
    for (const target of targets) await drive(servers[target].ready, 1, connections); // warm-up
    // Alternating rounds spread any drift of the machine over all targets alike.
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
  const bare = median(rps.bare);
  const platform = median(rps.platform);
  const failed = (t: Target) => (failures[t] ? `; ${failures[t]} non-2xx or errors` : "");
  console.log(`HTTP benchmark: autocannon, ${connections} connections, ${rounds} x ${duration} s per target, loopback, median of rounds`);
  console.log(`  bare fastify JSON route:   ${Math.round(bare)} req/s (p99 ${median(p99.bare)} ms)${failed("bare")}`);
  console.log(`  platform GET /v1/mailboxes: ${Math.round(platform)} req/s (p99 ${median(p99.platform)} ms)`);
  console.log(`  ratio ${(platform / bare).toFixed(2)} (goal at least 0.5)${failed("platform")}`);
  if (databaseUrl) {
    const pg = median(rps.postgres);
    console.log(`  platform on PostgreSQL:     ${Math.round(pg)} req/s (p99 ${median(p99.postgres)} ms)`);
    console.log(`  ratio ${(pg / bare).toFixed(2)} to the same bare route${failed("postgres")}`);
    console.log(`  PostgreSQL / SQLite per round: ${perRound(rps.postgres, rps.platform)} (SQLite / bare per round: ${perRound(rps.platform, rps.bare)})`);
  }
}

if (isMainThread) {
  await main();
} else {
  const { target, databaseUrl } = workerData as { target: Target; databaseUrl?: string };
  const server = await serve(target, databaseUrl);
  parentPort!.postMessage({ url: server.url, key: server.key });
  parentPort!.once("message", async () => {
    await server.close();
    process.exit(0);
  });
}
