// Webhook delivery throughput (part of `npm run bench`): events already in the outbox, delivered
// by the real worker (claim, load, open the secret, sign, SSRF-checked POST, record the attempt
// and remove the job in one transaction) to a loopback receiver, against a bare undici POST loop
// to the same receiver with the same concurrency (the worker's 4 per origin), in alternating rounds.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Worker, isMainThread, parentPort } from "node:worker_threads";
import { Agent, request } from "undici";
import { transaction } from "../db/database.ts";

export interface WebhookBench {
  engine: number;
  bare: number;
  ratio: number;
}

const PER_ORIGIN = 4;

/** The receiver runs in its own thread so it does not share the measured event loop. */
function startReceiverThread(): Promise<{ url: string; stop(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url));
  return new Promise((resolve, reject) => {
    worker.once("message", (url: string) => resolve({ url, stop: async () => void (await worker.terminate()) }));
    worker.once("error", reject);
  });
}

async function bareLoop(url: string, count: number, body: string): Promise<number> {
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: PER_ORIGIN }, async () => {
    while (next++ < count) {
      const res = await request(url, { method: "POST", body, headers: { "content-type": "application/json" }, dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`bare POST answered ${res.statusCode}`);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return count / seconds;
}

export async function benchmarkWebhooks(count = 2000, rounds = 5): Promise<WebhookBench> {
  const { startTestPlatform } = await import("../test/harness.ts");
  const { closeOutboundConnections } = await import("../adapters/outbound-http.ts");
  const receiver = await startReceiverThread();
  const p = await startTestPlatform({ allowHttpLoopbackWebhooks: true, dns: { enabled: false, host: "127.0.0.1", port: 0 } }, { runWorker: false });
  const t = await p.newTenant("bench");
  await t.api("POST", "/v1/webhooks", { url: receiver.url, events: ["mail.delivered"] });
  const data = { messageId: "msg_01hx7k2m9q", to: "bob@example.org", relay: "mx.example.org", relayMessageId: "250 2.0.0 Ok: queued as 4Xk2" };
  const sample = JSON.stringify({ id: "evt_0123456789abcdef", type: "mail.delivered", createdAt: new Date().toISOString(), data });
  const engine: number[] = [];
  const bare: number[] = [];
  try {
    await bareLoop(receiver.url, 200, sample); // warm-up of both paths
    transaction(p.db, () => { for (let i = 0; i < 200; i++) p.services.backend.emit(p.services.backend.direct, t.projectId, "mail.delivered", data); });
    await p.worker.drain();
    for (let round = 0; round < rounds; round++) {
      bare.push(await bareLoop(receiver.url, count, sample));
      transaction(p.db, () => { for (let i = 0; i < count; i++) p.services.backend.emit(p.services.backend.direct, t.projectId, "mail.delivered", data); });
      const started = performance.now();
      const ran = await p.worker.drain();
      engine.push(ran / ((performance.now() - started) / 1000));
      const left = (p.db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status != 'delivered'").get() as { n: number }).n;
      if (left) throw new Error(`${left} deliveries not delivered`);
    }
  } finally {
    await p.stop();
    await closeOutboundConnections();
    await receiver.stop();
  }
  // The ratio of each round pairs measurements taken seconds apart, so it holds while the
  // machine's load drifts; the median of rounds drops the odd disturbed one.
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  return { engine: median(engine), bare: median(bare), ratio: median(engine.map((e, i) => e / bare[i])) };
}

if (!isMainThread) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  server.listen(0, "127.0.0.1", () => parentPort!.postMessage(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchmarkWebhooks();
  console.log(`Webhook benchmark: bare undici POST loop ${Math.round(r.bare)}/s, delivery engine ${Math.round(r.engine)} deliveries/s, ratio ${r.ratio.toFixed(2)} (goal at least 0.5)`);
}
