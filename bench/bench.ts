// `npm run bench`: GET /v1/mailboxes on the full platform (auth, rate limit, SQLite, validation,
// serialization) against a bare fastify route answering the same JSON, in the same run, and the
// same platform on PostgreSQL (a throwaway loopback cluster, fsync on) against the same baseline
// (`--skip-postgres` leaves it out, also on the mail accept path; bench/http-bench.ts and
// accept-bench.ts run either alone); then the
// DNS server against a bare dns-packet responder and against NSD, PowerDNS and a bare dgram floor
// (bench/dns/bench.ts, peers-bench.ts); then webhook deliveries
// against a bare undici POST loop (bench/webhooks/bench.ts); then outgoing mail, inbound SMTP,
// the mailbox list, and DLP scanning and its cost on the send path (bench/dlp/bench.ts). Each
// HTTP server runs in its own worker thread, so the autocannon client on the main thread does not
// share its loop.
import { parseArgs } from "node:util";
import { goalLine, loadLine, recordedGoals } from "./stats.ts";
import { isMainThread } from "node:worker_threads";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: "10" },
      rounds: { type: "string", default: "5" },
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
  const loadBefore = loadLine();
  // One cluster for the run; each platform on it gets a database of its own.
  const postgres = values["skip-postgres"] || (values["skip-http"] && values["skip-mail"]) ? undefined : await startBenchPostgres();
  try {
    await runBenchmarks(values, duration, connections, rounds, postgres);
  } finally {
    await postgres?.stop();
  }
  printGoals(loadBefore);
}

/** The end of the run: every goal of issue 32 measured, its median of per-round ratios, met or not. */
function printGoals(loadBefore: string): void {
  const goals = recordedGoals();
  if (goals.length === 0) return;
  console.log(`\nGoals (medians of per-round ratios; ${loadBefore} at the start, ${loadLine()} at the end):`);
  for (const g of goals) console.log(`  ${goalLine(g)}`);
}

async function startBenchPostgres() {
  const { startPostgres } = await import("../test/support/postgres.ts");
  const cluster = await startPostgres();
  console.log("PostgreSQL 15: throwaway cluster on 127.0.0.1 (test/support/postgres.ts: fsync on, shared_buffers 16MB), pool of 10 per platform");
  return cluster;
}

type PostgresCluster = Awaited<ReturnType<typeof startBenchPostgres>>;

async function runBenchmarks(values: Record<string, string | boolean | undefined>, duration: number, connections: number, rounds: number, postgres: PostgresCluster | undefined): Promise<void> {
  if (!values["skip-http"]) {
    const { benchmarkMailboxes } = await import("./http-bench.ts");
    await benchmarkMailboxes({ duration, connections, rounds: Math.max(rounds, 5), databaseUrl: postgres && (await postgres.newDatabase()) });
  }
  if (!values["skip-dns"]) {
    const { benchmarkDns, benchmarkDnsPeers } = await import("./dns/bench.ts");
    const dns = await benchmarkDns();
    console.log(`DNS benchmark: bare dns-packet ${Math.round(dns.bareQps)} qps, platform ${Math.round(dns.platformQps)} qps, ratio ${dns.ratio.toFixed(2)} (goal at least 0.7)${dns.lost ? `, ${dns.lost} lost` : ""}`);
    // Against NSD and PowerDNS through dnsperf, with the bare dgram floor (issue 32); a missing peer fails the run.
    const peers = await benchmarkDnsPeers({ rounds: Math.max(rounds, 5), seconds: duration });
    for (const line of peers.lines) console.log(line.startsWith(" ") ? line : `DNS ${line}`);
    if (!peers.ok) process.exitCode = 1;
  }
  if (!values["skip-webhooks"]) {
    const { benchmarkWebhooks, printWebhookBench } = await import("./webhooks/bench.ts");
    printWebhookBench(await benchmarkWebhooks({ rounds: Math.max(rounds, 5) }), 2000);
  }
  if (!values["skip-mail"]) {
    // Imported here, not at the top: its module starts a server when loaded in a worker thread.
    const { benchmarkAccept } = await import("./accept-bench.ts");
    const { benchmarkRelay, printRelayBench } = await import("./mail-bench.ts");
    await benchmarkAccept({ duration, rounds: Math.max(rounds, 5), connections: 50, databaseUrl: postgres && (await postgres.newDatabase()) });
    await printRelayBench(await benchmarkRelay({ rounds: Math.max(rounds, 5) }));
  }
  if (!values["skip-inbound"]) {
    // The platform, a private Postfix delivering to a Maildir and a bare smtp-server, all driven
    // by smtp-source at 10 and 40 connections (bench/inbound/bench.ts, issue 32); its goals are
    // medians of per-round ratios over at least 5 rounds.
    const { benchmarkInbound, formatInbound } = await import("./inbound/bench.ts");
    const inbound = await benchmarkInbound({ seconds: duration, rounds: Math.max(rounds, 5) });
    for (const line of formatInbound(inbound, duration)) console.log(line);
  }
  if (!values["skip-list"]) {
    const { benchmarkMailboxList } = await import("./mailbox-reading/bench.ts");
    console.log(`Mailbox list benchmark: GET /v1/mailboxes/{id}/messages, 100,000 messages in one mailbox, autocannon ${connections} connections, ${duration} s each`);
    const rows = await benchmarkMailboxList({ seconds: duration, connections });
    const base = rows[0].rps;
    for (const r of rows) console.log(`  ${r.name.padEnd(26)} ${String(Math.round(r.rps)).padStart(6)} req/s  p99 ${r.p99} ms  (ratio to the empty mailbox ${(r.rps / base).toFixed(2)})`);
  }
  if (!values["skip-dlp"]) {
    const { runDlpBenchmarks } = await import("./dlp/bench.ts");
    await runDlpBenchmarks();
  }
}

if (isMainThread) await main();
