// List page latency with 100,000 messages in one mailbox, with and without filters, against the
// same route on an empty mailbox of the same server in the same run (the baseline: what the
// request costs before there is anything to read). The platform runs in a worker thread and is
// seeded in one transaction with SQL (delivering 100,000 messages over SMTP would take minutes
// and measure the listener, not the list); autocannon drives it from the main thread.
import { createRequire } from "node:module";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const MESSAGES = 100_000;
interface Ready {
  base: string;
  key: string;
  full: string;
  empty: string;
}
interface CannonResult {
  requests: { average: number };
  latency: { p99: number; average: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (opts: object) => Promise<CannonResult>;

async function serve(): Promise<Ready & { close(): Promise<void> }> {
  const { startTestPlatform } = await import("../../server/test/harness.ts");
  const { transaction } = await import("../../server/db/database.ts");
  const p = await startTestPlatform({ dns: { enabled: false, host: "127.0.0.1", port: 0 } }, { runWorker: false });
  const t = await p.newTenant("list-bench", { rateLimit: 1_000_000_000 });
  const full = (await t.api("POST", "/v1/mailboxes", { name: "full", domain: t.domain, password: "correct horse" })).body.id as string;
  const empty = (await t.api("POST", "/v1/mailboxes", { name: "empty", domain: t.domain, password: "correct horse" })).body.id as string;
  const start = Date.UTC(2026, 0, 1);
  transaction(p.db, () => {
    const content = p.db.prepare("INSERT INTO message_contents (raw, size, detail) VALUES (?, 100, '{}') RETURNING id").get(Buffer.from("x")) as { id: number };
    const insert = p.db.prepare(
      `INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const address = p.db.prepare("INSERT OR IGNORE INTO mailbox_message_addresses (mailbox_id, address, received_ms, uid) VALUES (?, ?, ?, ?)");
    for (let i = 1; i <= MESSAGES; i++) {
      const sender = `sender${i % 1000}@company${i % 37}.example`;
      for (const a of [sender, `full@${t.domain}`, `colleague${i % 50}@${t.domain}`]) address.run(full, a, start + i * 60_000, i);
      insert.run(full, i, content.id, start + i * 60_000, `Message number ${i} about things`, JSON.stringify([{ email: sender, name: `Sender ${i % 1000}` }]),
        ` ${sender} `, ` full@${t.domain} colleague${i % 50}@${t.domain} `, i % 10 === 0 ? 1 : 0, `m${i}@company${i % 37}.example`,
        "A preview of the text of the message, two hundred characters at most, as the list shows it to a reader skimming through.");
    }
  });
  p.db.exec("ANALYZE");
  return { base: p.url, key: t.key, full, empty, close: () => p.stop() };
}

export interface ListBenchmarkRow {
  name: string;
  rps: number;
  p99: number;
  average: number;
}

export async function benchmarkMailboxList({ seconds = 5, connections = 10 } = {}): Promise<ListBenchmarkRow[]> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { listBench: true } });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  const last = new Date(Date.UTC(2026, 0, 1) + (MESSAGES - 500) * 60_000).toISOString();
  const first = new Date(Date.UTC(2026, 0, 1) + 501 * 60_000).toISOString();
  const targets: [string, string][] = [
    ["empty mailbox (baseline)", `${ready.empty}/messages`],
    ["100k, no filter", `${ready.full}/messages`],
    ["100k, limit=500", `${ready.full}/messages?limit=500`],
    ["100k, since (last 500)", `${ready.full}/messages?since=${last}`],
    ["100k, before (first 500)", `${ready.full}/messages?before=${first}`],
    ["100k, hasAttachment=true", `${ready.full}/messages?hasAttachment=true`],
    ["100k, with=<address>", `${ready.full}/messages?with=sender7@company7.example`],
    ["100k, from=<substring>", `${ready.full}/messages?from=company3`],
    ["100k, from=<rare substring>", `${ready.full}/messages?from=sender7@company7.`],
    ["100k, from=<one character>", `${ready.full}/messages?from=9`],
    ["100k, to=<substring>", `${ready.full}/messages?to=colleague4`],
    ["100k, from= and since=", `${ready.full}/messages?from=company3&since=${last}`],
    ["100k, offset=50000", `${ready.full}/messages?offset=50000`],
  ];
  const rows: ListBenchmarkRow[] = [];
  try {
    for (const [name, path] of targets) {
      const url = `${ready.base}/v1/mailboxes/${path}`;
      await autocannon({ url, duration: 1, connections, headers: { authorization: `Bearer ${ready.key}` } });
      const r = await autocannon({ url, duration: seconds, connections, headers: { authorization: `Bearer ${ready.key}` } });
      if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      rows.push({ name, rps: r.requests.average, p99: r.latency.p99, average: r.latency.average });
    }
  } finally {
    worker.postMessage("stop");
  }
  return rows;
}

if (!isMainThread && (workerData as { listBench?: boolean })?.listBench) {
  const server = await serve();
  parentPort!.postMessage({ base: server.base, key: server.key, full: server.full, empty: server.empty });
  parentPort!.once("message", async () => {
    await server.close();
    process.exit(0);
  });
} else if (isMainThread && process.argv[1] === import.meta.filename) {
  for (const r of await benchmarkMailboxList()) console.log(`${r.name.padEnd(28)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99} ms  avg ${r.average} ms`);
}
