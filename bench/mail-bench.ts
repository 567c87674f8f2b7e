// Outgoing-mail benchmarks, each a ratio against a baseline measured in the same run (the accept
// path, POST /v1/mail/send against a bare insert route, is in accept-bench.ts):
// - relay (alone: `npm run bench:relay`): messages/s from the queue to a loopback sink, composed
//   and DKIM-signed, against nodemailer's pooled SMTP transport signing with the same key and
//   sending the same messages to the same sink (4 connections each: the relay's per-domain
//   concurrency), 5 interleaved rounds, the goal (issue 32) on the median of per-round ratios.
import { parseArgs } from "node:util";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import nodemailer from "nodemailer";

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
export function startSinkThread(): Promise<{ port: number; received(): Promise<number>; stop(): Promise<void> }> {
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
  const { startTestPlatform } = await import("../server/test/harness.ts");
  const { hostMailZone } = await import("../server/test/mail-zone.ts");
  const { composeMessage, SIGNED_HEADERS } = await import("../server/mail-sending/compose.ts");
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
  console.log(`  ratio ${formatRatio(r.platform, r.nodemailer, RELAY_GOAL, "relay / nodemailer pooled SMTP")} (${r.loadAfter})`);
}

if (!isMainThread && (workerData as { sink?: boolean })?.sink) {
  const { startSmtpSink } = await import("../server/test/smtp-sink.ts");
  const sink = await startSmtpSink();
  // Only the count is asked for: the messages themselves are dropped as they come.
  let received = 0;
  const push = sink.messages.push.bind(sink.messages);
  sink.messages.push = (...m) => ((received += m.length), push(...m), (sink.messages.length = 0));
  parentPort!.on("message", () => parentPort!.postMessage(received));
  parentPort!.postMessage(sink.port);
}

// `npm run bench:relay` (node bench/mail-bench.ts [--rounds 5] [--messages 400] [--profile FILE]): the relay alone.
if (isMainThread && import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, messages: { type: "string", default: "400" }, profile: { type: "string" } } });
  await printRelayBench(await benchmarkRelay({ rounds: Number(values.rounds), messages: Number(values.messages), profile: values.profile }));
}
