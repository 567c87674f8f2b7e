// Queries per second of the authoritative server against a bare dns-packet responder that
// answers a fixed A record without any lookup: the ratio is what our lookups, SQLite and
// DNS rules cost. Each server runs in its own worker thread so it has an event loop to
// itself, as in production; the main thread is the one loopback client for both.
// Then the same zone served by the platform, NSD and PowerDNS, driven by dnsperf (peers-bench.ts).
// Usage: npm run bench:dns [-- --queries 20000 --concurrency 32 --rounds 3 --seconds 5 --peers-only]
import dgram from "node:dgram";
import { parseArgs } from "node:util";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { decode, encode } from "dns-packet";
import { startDnsServer } from "../../server/dns/authoritative-server.ts";
import { createExampleZone } from "../../server/dns/example-zone.ts";
import { queryPacket } from "../../server/dns/wire-client.ts";
import { INSTALL_COMMAND, benchmarkPeers, formatPeers, missingPeers } from "./peers-bench.ts";

type Target = "bare" | "platform";
const QUERY_NAME = "web.example.test";

async function serve(target: Target): Promise<number> {
  if (target === "platform") {
    const { repository } = await createExampleZone();
    return (await startDnsServer({ host: "127.0.0.1", port: 0, repository })).udpPort;
  }
  const socket = dgram.createSocket("udp4");
  socket.on("message", (message, remote) => {
    let query;
    try {
      query = decode(message);
    } catch {
      return;
    }
    const answers = [{ name: QUERY_NAME, type: "A" as const, ttl: 300, class: "IN" as const, data: "192.0.2.2" }];
    const reply = encode({ type: "response", id: query.id, flags: 1 << 10, questions: query.questions, answers });
    socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return socket.address().port;
}

function startWorker(target: Target): Promise<{ port: number; worker: Worker }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { target } });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ port, worker }));
    worker.once("error", reject);
  });
}

/**
 * Send `total` queries keeping `concurrency` in flight; a query unanswered for a second is
 * counted lost and replaced, so a dropped datagram cannot stall the run.
 */
async function drive(port: number, total: number, concurrency: number): Promise<{ qps: number; lost: number }> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  // Every query is the same but its id; pre-encode once so the client costs the same for both.
  const template = encode(queryPacket({ name: QUERY_NAME, type: "A", id: 0 }));
  const inFlight = new Map<number, number>();
  let sent = 0;
  let answered = 0;
  let lost = 0;
  let nextId = 0;
  const started = performance.now();
  return new Promise((resolve) => {
    const send = () => {
      if (sent >= total) return;
      const id = nextId++ & 0xffff;
      const message = Buffer.from(template);
      message.writeUInt16BE(id, 0);
      inFlight.set(id, performance.now());
      sent++;
      socket.send(message, port, "127.0.0.1");
    };
    const finish = () => {
      clearInterval(sweeper);
      socket.close();
      resolve({ qps: answered / ((performance.now() - started) / 1000), lost });
    };
    socket.on("message", (reply) => {
      if (!inFlight.delete(reply.readUInt16BE(0))) return;
      answered++;
      if (answered + lost >= total) finish();
      else send();
    });
    const sweeper = setInterval(() => {
      const now = performance.now();
      for (const [id, at] of inFlight) {
        if (now - at < 1000) continue;
        inFlight.delete(id);
        lost++;
        send();
      }
      if (answered + lost >= total) finish();
    }, 250);
    for (let i = 0; i < concurrency; i++) send();
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface DnsBenchmarkResult {
  bareQps: number;
  platformQps: number;
  ratio: number;
  lost: number;
}

/** Run the comparison; exported so the server-wide `npm run bench` can include it. */
export async function benchmarkDns({ queries = 20000, concurrency = 32, rounds = 3 } = {}): Promise<DnsBenchmarkResult> {
  const servers = { bare: await startWorker("bare"), platform: await startWorker("platform") };
  const results: Record<Target, number[]> = { bare: [], platform: [] };
  let lost = 0;
  try {
    for (const target of ["bare", "platform"] as const) await drive(servers[target].port, Math.min(2000, queries), concurrency);
    // Alternating rounds spread any drift of the machine over both targets alike.
    for (let round = 0; round < rounds; round++) {
      for (const target of ["bare", "platform"] as const) {
        const run = await drive(servers[target].port, queries, concurrency);
        results[target].push(run.qps);
        lost += run.lost;
      }
    }
  } finally {
    await Promise.all([servers.bare.worker.terminate(), servers.platform.worker.terminate()]);
  }
  const bareQps = median(results.bare);
  const platformQps = median(results.platform);
  return { bareQps, platformQps, ratio: platformQps / bareQps, lost };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      queries: { type: "string", default: "20000" },
      concurrency: { type: "string", default: "32" },
      rounds: { type: "string", default: "3" },
      seconds: { type: "string", default: "5" },
      "peers-only": { type: "boolean", default: false },
    },
  });
  const [queries, concurrency, rounds, seconds] = [values.queries, values.concurrency, values.rounds, values.seconds].map(Number);
  if (!values["peers-only"]) {
    const { bareQps, platformQps, ratio, lost } = await benchmarkDns({ queries, concurrency, rounds });
    console.log(`DNS benchmark: ${queries} UDP queries x ${rounds} rounds, concurrency ${concurrency}, loopback, median of rounds`);
    console.log(`  bare dns-packet responder: ${Math.round(bareQps)} qps`);
    console.log(`  platform authoritative:    ${Math.round(platformQps)} qps`);
    console.log(`  ratio: ${ratio.toFixed(2)} (goal >= 0.70)${ratio >= 0.7 ? "" : "  BELOW GOAL"}`);
    if (lost > 0) console.log(`  lost datagrams (resent): ${lost}`);
  }
  const peers = await benchmarkDnsPeers({ rounds, seconds });
  for (const line of peers.lines) console.log(line);
  if (!peers.ok) process.exitCode = 1;
}

/**
 * The peer comparison's report (NSD, PowerDNS, the dgram floor, the platform), shared with the
 * server-wide `npm run bench`. Missing peers are never skipped in silence: `ok` is false and
 * the lines name the packages and the command that installs them.
 */
export async function benchmarkDnsPeers({ rounds = 3, seconds = 5 } = {}): Promise<{ ok: boolean; lines: string[] }> {
  const missing = missingPeers();
  if (missing.length > 0) return { ok: false, lines: [`DNS peers missing (Debian packages): ${missing.join(" ")}`, `install them with:  ${INSTALL_COMMAND}`] };
  return { ok: true, lines: formatPeers(await benchmarkPeers({ rounds, seconds }), seconds) };
}

if (!isMainThread) {
  parentPort!.postMessage(await serve((workerData as { target: Target }).target));
} else if (import.meta.main) {
  await main();
}
