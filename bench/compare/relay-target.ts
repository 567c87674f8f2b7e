// The relay of one tree as a compared target (bench/mail-bench.ts runs it on its own thread, so
// it cannot be started twice): this worker starts the platform of the tree at `root` (relay
// pointed at the loopback sink, job worker off) and answers two requests, so that what is
// measured is the relay alone: "accept" queues `count` DKIM-signed messages through
// POST /v1/mail/send-batch (not measured), "drain" runs the queue dry (measured by the caller).
import { parentPort, workerData } from "node:worker_threads";

const { root, sinkPort, databaseUrl } = workerData as { root: string; sinkPort: number; databaseUrl: string };
const { startTestPlatform } = (await import(`${root}/server/test/harness.ts`)) as typeof import("../../server/test/harness.ts");
const { hostMailZone } = (await import(`${root}/server/test/mail-zone.ts`)) as typeof import("../../server/test/mail-zone.ts");

const p = await startTestPlatform({ relay: { name: "relay.bench.test", port: sinkPort, allowLoopback: true }, databaseUrl }, { runWorker: false });
const t = await p.newTenant("relaybench", { rateLimit: 1_000_000_000 });
await hostMailZone(p.services, "dest.test");

type Request = { cmd: "accept"; count: number } | { cmd: "drain" } | { cmd: "stop" };

async function accept(count: number): Promise<number> {
  for (let i = 0; i < count; i += 200) {
    const messages = Array.from({ length: Math.min(200, count - i) }, (_, k) => ({ to: `user${i + k}@dest.test`, vars: { n: i + k } }));
    const res = await t.api("POST", "/v1/mail/send-batch", { from: `news@${t.domain}`, subject: "Relay {{n}}", text: "Hello {{n}}", html: "<p>Hello {{n}}</p>", messages });
    if (res.status !== 200 && res.status !== 202) throw new Error(`send-batch answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return count;
}

parentPort!.postMessage({ ready: true });
parentPort!.on("message", async (r: Request) => {
  if (r.cmd === "accept") parentPort!.postMessage(await accept(r.count));
  else if (r.cmd === "drain") parentPort!.postMessage(await p.worker.drain());
  else {
    await p.stop();
    process.exit(0);
  }
});
