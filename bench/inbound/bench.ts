// Inbound messages per second against what an operator would run instead (issue 32): the
// platform's listener (recipient lookup, SPF/DKIM/DMARC by mailauth, mailparser, the message and
// its mail.received event committed with synchronous=FULL before the 250), a private Postfix
// delivering to a Maildir (postfix-peer.ts: its 250 follows the queue file's fsync, then
// virtual(8) writes and fsyncs the Maildir file), and a bare smtp-server that discards. All three
// are driven by the same external client, Postfix's smtp-source (smtp-source.ts), with the same
// 10 KB message, at 10 and at 40 connections, in interleaved rounds. A round counts only what
// was verifiably kept: rows in the platform's store, files in Postfix's Maildir, messages the
// bare server read; a target that acknowledges less than it was sent fails the bench.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { SMTPServer } from "smtp-server";
import { formatRatio, loadLine, median, recordGoal } from "../stats.ts";
import { startPostfixPeer, reapedChildrenCpuMs, requirePostfix, type PostfixPeer } from "./postfix-peer.ts";
import { smtpSource } from "./smtp-source.ts";

export type Target = "bare" | "platform" | "postfix";
const TARGETS: Target[] = ["bare", "platform", "postfix"];
const RCPT = "bench@inbound-bench.test";
const FROM = "sender@sender.test";
/** The goal against Postfix per connection count (issue 32). */
const GOALS: Record<number, number> = { 10: 0.8, 40: 1.0 };

interface Served {
  port: number;
  /** The platform's data folder, removed by the main thread at exit (also after Ctrl-C). */
  dataDir?: string;
  /** Messages kept so far: stored rows (platform) or messages read to their end (bare). */
  kept(): number;
  close(): Promise<void>;
}

async function serve(target: "bare" | "platform"): Promise<Served> {
  if (target === "bare") {
    let kept = 0;
    const server = new SMTPServer({
      authOptional: true, disabledCommands: ["AUTH", "STARTTLS"], disableReverseLookup: true, logger: false, size: 25 * 1024 * 1024, maxClients: 200,
      onData(stream, _session, callback) {
        stream.on("end", () => {
          kept++;
          callback(null);
        });
        stream.resume();
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.server.address();
    return { port: typeof address === "object" && address ? address.port : 0, kept: () => kept, close: () => new Promise((r) => server.close(() => r())) };
  }
  const { startTestPlatform } = await import("../../server/test/harness.ts");
  const { defaults } = await import("../../server/config.ts");
  // One sending host at 40 connections: the per-client cap (default 20, decision I1) is raised
  // to Postfix's own default (smtpd_client_connection_count_limit 50), which the peer runs with.
  const p = await startTestPlatform({ smtp: { ...defaults.smtp, port: 0, maxConnectionsPerClient: 50 } }, { runWorker: false });
  const t = await p.newTenant("inbound-bench");
  await t.api("POST", "/v1/mailboxes", { name: "bench", domain: t.domain, password: "correct horse" });
  const count = p.db.prepare("SELECT count(*) AS n FROM mailbox_messages");
  return { port: p.smtp!.port, dataDir: p.dataDir, kept: () => Number((count.get() as { n: number }).n), close: () => p.stop() };
}

interface Handle {
  port: number;
  kept(): Promise<number>;
  /** CPU ms: the target's own (its thread, or Postfix's processes) and, for threads, the split. */
  cpuMs(): Promise<{ total: number; thread?: number; waitMs?: number }>;
  stop(): Promise<void>;
}

function startWorker(target: "bare" | "platform"): Promise<Handle> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { inboundBenchTarget: target } });
  const ask = <T,>(request: string) =>
    new Promise<T>((resolve) => {
      worker.once("message", resolve);
      worker.postMessage(request);
    });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", ({ port, dataDir }: { port: number; dataDir?: string }) => {
      // A Ctrl-C ends the worker without its stop(): its folder goes with the process.
      if (dataDir) process.once("exit", () => rmSync(dataDir, { recursive: true, force: true }));
      resolve({
        port,
        kept: () => ask<number>("kept"),
        // The whole process but the main thread (which only waits for smtp-source): the target's
        // thread, and on the platform its delivery writer, libuv's pool and GC helpers. The other
        // target's thread idles meanwhile.
        cpuMs: async () => {
          const thread = await ask<number>("cpu");
          const all = process.cpuUsage();
          const main = process.threadCpuUsage();
          return { total: (all.user + all.system - main.user - main.system) / 1000, thread: thread / 1000, waitMs: runqueueWaitMs() };
        },
        stop: async () => {
          const exited = new Promise((r) => worker.once("exit", r));
          worker.postMessage("stop");
          await exited;
        },
      });
    });
  });
}

/**
 * Milliseconds this process's threads but the main one have spent runnable and waiting for a CPU
 * (/proc schedstat). On a shared machine it tells whether a slow round was starved of CPU (a
 * busy machine gives each scheduling group a share, and a group with fewer runnable threads than
 * cores cannot use more than those) or waited on something else, such as the disk.
 */
function runqueueWaitMs(): number {
  let ns = 0;
  const mainTid = readFileSync("/proc/thread-self/stat", "utf8").split(" ")[0];
  for (const tid of readdirSync("/proc/self/task")) {
    if (tid === mainTid) continue;
    try {
      ns += Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[1]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e6;
}

function postfixHandle(peer: PostfixPeer): Handle {
  return { port: peer.port, kept: async () => peer.delivered(), cpuMs: async () => ({ total: peer.cpuMs() }), stop: () => peer.stop() };
}

/** The 10 KB message the old nodemailer clients sent, as one file for smtp-source -F (LF lines). */
function messageFile(dir: string): string {
  const body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(176).replace(/(.{76})/g, "$1\n");
  const text = `From: Sender <${FROM}>\nTo: ${RCPT}\nSubject: bench\nMessage-ID: <bench@sender.test>\nDate: ${new Date().toUTCString()}\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n${body}\n`;
  const file = path.join(dir, "message.eml");
  writeFileSync(file, text);
  return file;
}

/** CPU milliseconds per kept message, the target's and smtp-source's. */
export interface CpuPerMessage {
  /** Everything the target used: Postfix's master and daemons; the platform's or bare server's threads. */
  server: number;
  /** Of `server`, the SMTP listener's own thread (platform, bare). */
  thread?: number;
  /** smtp-source, the client. */
  client: number;
  /** Platform and bare server: time their threads waited for a CPU while runnable. */
  runqueueWait?: number;
}

interface Round {
  rate: number;
  /** Postfix: messages per second until smtp-source had every 250 (the rate counts until the Maildir has them all). */
  ackRate: number;
  cpu: CpuPerMessage;
}

async function drive(handle: Handle, target: Target, file: string, sessions: number, messages: number): Promise<Round> {
  const keptBefore = await handle.kept();
  const cpuBefore = await handle.cpuMs();
  const clientBefore = reapedChildrenCpuMs();
  const started = performance.now();
  const { seconds: ackSeconds } = await smtpSource({ port: handle.port, sessions, messages, file, from: FROM, to: RCPT });
  // Postfix answers 250 once the queue file is safe and delivers to the Maildir after: the round
  // ends when the Maildir has every message, so its delivery work is this round's, not the next's.
  let kept = (await handle.kept()) - keptBefore;
  for (let waited = 0; target === "postfix" && kept < messages && waited < 30_000; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
    kept = (await handle.kept()) - keptBefore;
  }
  const seconds = (performance.now() - started) / 1000;
  if (kept !== messages) throw new Error(`${target}: smtp-source had 250 for ${messages} messages but ${kept} were kept`);
  const cpuAfter = await handle.cpuMs();
  const client = reapedChildrenCpuMs() - clientBefore;
  return {
    rate: messages / seconds,
    ackRate: messages / ackSeconds,
    cpu: {
      server: (cpuAfter.total - cpuBefore.total) / messages,
      thread: cpuAfter.thread === undefined ? undefined : (cpuAfter.thread - cpuBefore.thread!) / messages,
      client: client / messages,
      runqueueWait: cpuAfter.waitMs === undefined ? undefined : (cpuAfter.waitMs - cpuBefore.waitMs!) / messages,
    },
  };
}

export interface InboundConnectionsResult {
  connections: number;
  rates: Record<Target, number[]>;
  /** Postfix's rate until its last 250 (before the Maildir had them all), per round. */
  postfixAckRates: number[];
  /** Per target, the round with the median server CPU per message. */
  cpu: Record<Target, CpuPerMessage>;
  loadBefore: string;
  loadAfter: string;
}

export async function benchmarkInbound({ seconds = 3, rounds = 5, connectionCounts = [10, 40] } = {}): Promise<InboundConnectionsResult[]> {
  requirePostfix();
  // Ctrl-C or a kill: exit through the 'exit' handlers, which stop Postfix and remove the folders.
  const interrupted = (signal: NodeJS.Signals) => process.exit(signal === "SIGINT" ? 130 : 143);
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  const dir = mkdtempSync(path.join(tmpdir(), "inbound-bench-"));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once("exit", removeDir);
  const file = messageFile(dir);
  const handles = {} as Record<Target, Handle>;
  try {
    handles.bare = await startWorker("bare");
    handles.platform = await startWorker("platform");
    handles.postfix = postfixHandle(await startPostfixPeer(RCPT));
    const results: InboundConnectionsResult[] = [];
    for (const connections of connectionCounts) {
      // Each round sends about `seconds` worth of messages at the target's last rate.
      const rate: Record<Target, number> = { bare: 0, platform: 0, postfix: 0 };
      // Warm-up: enough messages for V8 to optimise the platform's path (200 left the first
      // round at half speed) and for Postfix to have started its daemons.
      for (const target of TARGETS) rate[target] = (await drive(handles[target], target, file, connections, Math.max(1500, connections * 20))).rate;
      const loadBefore = loadLine();
      const rates: Record<Target, number[]> = { bare: [], platform: [], postfix: [] };
      const cpus: Record<Target, CpuPerMessage[]> = { bare: [], platform: [], postfix: [] };
      const postfixAckRates: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const target of TARGETS) {
          const messages = Math.max(connections * 10, Math.round(rate[target] * seconds));
          const r = await drive(handles[target], target, file, connections, messages);
          rate[target] = r.rate;
          rates[target].push(r.rate);
          cpus[target].push(r.cpu);
          if (target === "postfix") postfixAckRates.push(r.ackRate);
        }
      }
      const medianCpu = (v: CpuPerMessage[]) => [...v].sort((a, b) => a.server - b.server)[Math.floor(v.length / 2)];
      results.push({ connections, rates, postfixAckRates, cpu: { bare: medianCpu(cpus.bare), platform: medianCpu(cpus.platform), postfix: medianCpu(cpus.postfix) }, loadBefore, loadAfter: loadLine() });
    }
    return results;
  } finally {
    for (const handle of Object.values(handles)) await handle.stop();
    removeDir();
    process.off("exit", removeDir);
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

/** The lines `npm run bench` and `node bench/inbound/bench.ts` print. */
export function formatInbound(results: InboundConnectionsResult[], seconds: number): string[] {
  const lines: string[] = [];
  for (const r of results) {
    const rounds = r.rates.platform.length;
    const ms = (x: number | undefined) => (x === undefined ? "" : x.toFixed(2));
    const cpu = (t: Target) => `${ms(r.cpu[t].server)} ms${r.cpu[t].thread !== undefined ? ` (listener thread ${ms(r.cpu[t].thread)})` : ""}`;
    lines.push(`Inbound SMTP: smtp-source -d, 10 KB message, ${r.connections} connections, ${rounds} interleaved rounds of about ${seconds} s per target (${r.loadBefore} before, ${r.loadAfter} after)`);
    lines.push(`  bare smtp-server (discards):                 ${Math.round(median(r.rates.bare))} msg/s`);
    lines.push(`  Postfix, virtual(8) to a Maildir:            ${Math.round(median(r.rates.postfix))} msg/s in the Maildir (${Math.round(median(r.postfixAckRates))} msg/s to the last 250)`);
    lines.push(`  platform (SPF/DKIM/DMARC, parsed, stored, fsync'd before 250): ${Math.round(median(r.rates.platform))} msg/s`);
    lines.push(`  platform / Postfix ${formatRatio(r.rates.platform, r.rates.postfix, GOALS[r.connections], `inbound SMTP, platform / Postfix-Maildir, ${r.connections} connections`, r.rates.bare)}`);
    lines.push(`  platform / bare ${formatRatio(r.rates.platform, r.rates.bare)}; Postfix / bare ${formatRatio(r.rates.postfix, r.rates.bare)}`);
    recordGoal(`inbound SMTP, CPU per message, platform / Postfix, ${r.connections} connections`, r.cpu.platform.server / r.cpu.postfix.server, 1, "at most", r.cpu.bare.server / r.cpu.postfix.server);
    lines.push(`  CPU per message, server side: platform ${cpu("platform")}, Postfix ${cpu("postfix")} (master and all its daemons), bare ${cpu("bare")}; smtp-source ${ms(r.cpu.platform.client)} / ${ms(r.cpu.postfix.client)} / ${ms(r.cpu.bare.client)} ms`);
    lines.push(`  the platform's threads waited ${ms(r.cpu.platform.runqueueWait)} ms per message for a CPU while runnable (a starved round when well above its CPU per message)`);
  }
  return lines;
}

if (!isMainThread && (workerData as { inboundBenchTarget?: Target })?.inboundBenchTarget) {
  const server = await serve((workerData as { inboundBenchTarget: "bare" | "platform" }).inboundBenchTarget);
  parentPort!.postMessage({ port: server.port, dataDir: server.dataDir });
  parentPort!.on("message", async (request: "cpu" | "kept" | "stop") => {
    if (request === "cpu") {
      const used = process.threadCpuUsage();
      parentPort!.postMessage(used.user + used.system);
    } else if (request === "kept") {
      parentPort!.postMessage(server.kept());
    } else {
      await server.close();
      process.exit(0);
    }
  });
} else if (isMainThread && process.argv[1] === import.meta.filename) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "3" }, rounds: { type: "string", default: "5" }, connections: { type: "string", default: "10,40" } } });
  const seconds = Number(values.seconds);
  const results = await benchmarkInbound({ seconds, rounds: Number(values.rounds), connectionCounts: values.connections.split(",").map(Number) });
  for (const line of formatInbound(results, seconds)) console.log(line);
}
