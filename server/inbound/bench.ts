// Inbound messages per second: the platform's listener (recipient lookup, mailauth, mailparser,
// one synchronous=FULL transaction per message with its event) against a bare smtp-server that
// accepts the same messages and discards them, in the same run. 10 KB messages over 10
// connections; each server in its own worker thread, the nodemailer clients on the main thread.
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";

type Target = "bare" | "platform";
const RCPT = "bench@inbound-bench.test";

async function serve(target: Target): Promise<{ port: number; close(): Promise<void> }> {
  if (target === "bare") {
    const server = new SMTPServer({
      authOptional: true, disabledCommands: ["AUTH", "STARTTLS"], disableReverseLookup: true, logger: false, size: 25 * 1024 * 1024,
      onData(stream, _session, callback) {
        stream.on("end", () => callback(null));
        stream.resume();
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.server.address();
    return { port: typeof address === "object" && address ? address.port : 0, close: () => new Promise((r) => server.close(() => r())) };
  }
  const { startTestPlatform } = await import("../test/harness.ts");
  const p = await startTestPlatform({}, { runWorker: false });
  const t = await p.newTenant("inbound-bench");
  await t.api("POST", "/v1/mailboxes", { name: "bench", domain: t.domain, password: "correct horse" });
  return { port: p.smtp!.port, close: () => p.stop() };
}

interface ServerWorker {
  port: number;
  worker: Worker;
  /** CPU microseconds the server's own thread (smtp-server, and on the platform its listener) has used. */
  threadCpu(): Promise<number>;
}

function startWorker(target: Target): Promise<ServerWorker> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { inboundBenchTarget: target } });
  const threadCpu = () =>
    new Promise<number>((resolve) => {
      worker.once("message", (us: number) => resolve(us));
      worker.postMessage("cpu");
    });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ port, worker, threadCpu }));
    worker.once("error", reject);
  });
}

function message(i: number): string {
  const body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(176).replace(/(.{76})/g, "$1\r\n");
  return `From: Sender <sender@sender.test>\r\nTo: ${RCPT}\r\nSubject: bench ${i}\r\nMessage-ID: <bench-${i}-${Math.random()}@sender.test>\r\nDate: ${new Date().toUTCString()}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;
}

/** Messages accepted per second over `connections` connections for `seconds`. */
async function drive(server: ServerWorker, seconds: number, connections: number): Promise<{ rate: number; failed: number; cpu: CpuPerMessage }> {
  const port = server.port;
  const until = Date.now() + seconds * 1000;
  let accepted = 0;
  let failed = 0;
  const serverCpu = await server.threadCpu();
  const started = Date.now();
  const cpu = process.cpuUsage();
  const clientCpu = process.threadCpuUsage();
  await Promise.all(Array.from({ length: connections }, async () => {
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
    let i = 0;
    while (Date.now() < until) {
      try {
        await transport.sendMail({ envelope: { from: "sender@sender.test", to: [RCPT] }, raw: message(i++) });
        accepted++;
      } catch {
        failed++;
      }
    }
    transport.close();
  }));
  const used = process.cpuUsage(cpu);
  const client = process.threadCpuUsage(clientCpu);
  const serverUs = (await server.threadCpu()) - serverCpu;
  const totalUs = used.user + used.system;
  const clientUs = client.user + client.system;
  const perMessage = (us: number) => us / 1000 / Math.max(accepted, 1);
  return {
    rate: accepted / ((Date.now() - started) / 1000),
    failed,
    cpu: { total: perMessage(totalUs), client: perMessage(clientUs), server: perMessage(serverUs), other: perMessage(totalUs - clientUs - serverUs) },
  };
}

/**
 * CPU milliseconds per accepted message: the whole process, and split into the nodemailer clients'
 * thread, the server's thread and every other thread (the platform's delivery writer, libuv's
 * pool, the garbage collector's helpers). On a machine whose cores are all busy, the ratio of
 * throughputs follows the ratio of `total`.
 */
export interface CpuPerMessage {
  total: number;
  client: number;
  server: number;
  other: number;
}

export interface InboundBenchmarkResult {
  bare: number;
  platform: number;
  ratio: number;
  /** Each round's platform rate over the bare rate of the same round: the spread a shared machine gives. */
  roundRatios: number[];
  /** Per target, the round with the median total CPU per message. */
  cpu: Record<Target, CpuPerMessage>;
  failed: number;
}

export async function benchmarkInbound({ seconds = 5, connections = 10, rounds = 3 } = {}): Promise<InboundBenchmarkResult> {
  const servers = { bare: await startWorker("bare"), platform: await startWorker("platform") };
  const rates: Record<Target, number[]> = { bare: [], platform: [] };
  const cpu: Record<Target, CpuPerMessage[]> = { bare: [], platform: [] };
  let failed = 0;
  try {
    for (const target of ["bare", "platform"] as const) await drive(servers[target], 1, connections); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const target of ["bare", "platform"] as const) {
        const r = await drive(servers[target], seconds, connections);
        rates[target].push(r.rate);
        cpu[target].push(r.cpu);
        failed += r.failed;
      }
    }
  } finally {
    for (const s of Object.values(servers)) s.worker.postMessage("stop");
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const bare = median(rates.bare);
  const platform = median(rates.platform);
  return { bare, platform, ratio: platform / bare, roundRatios: rates.platform.map((p, i) => p / rates.bare[i]), cpu: { bare: medianCpu(cpu.bare), platform: medianCpu(cpu.platform) }, failed };
}

function medianCpu(rounds: CpuPerMessage[]): CpuPerMessage {
  return [...rounds].sort((a, b) => a.total - b.total)[Math.floor(rounds.length / 2)];
}

if (!isMainThread && (workerData as { inboundBenchTarget?: Target })?.inboundBenchTarget) {
  const server = await serve((workerData as { inboundBenchTarget: Target }).inboundBenchTarget);
  parentPort!.postMessage(server.port);
  parentPort!.on("message", async (request: "cpu" | "stop") => {
    if (request === "cpu") {
      const used = process.threadCpuUsage();
      parentPort!.postMessage(used.user + used.system);
      return;
    }
    await server.close();
    process.exit(0);
  });
} else if (isMainThread && process.argv[1] === import.meta.filename) {
  const r = await benchmarkInbound();
  console.log(`Inbound SMTP: bare smtp-server ${r.bare.toFixed(0)} msg/s, platform ${r.platform.toFixed(0)} msg/s, ratio ${r.ratio.toFixed(2)} (goal at least 0.5; rounds ${r.roundRatios.map((x) => x.toFixed(2)).join(", ")})${r.failed ? `; ${r.failed} failed` : ""}`);
  const cpu = (c: CpuPerMessage) => `${c.total.toFixed(2)} ms (clients ${c.client.toFixed(2)}, server thread ${c.server.toFixed(2)}, other threads ${c.other.toFixed(2)})`;
  console.log(`  CPU per message: bare ${cpu(r.cpu.bare)}; platform ${cpu(r.cpu.platform)}`);
}
