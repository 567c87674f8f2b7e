// HTTP benchmark targets in worker threads, measured the same way for every HTTP path (reads,
// mail accept): each server runs in its own thread so the autocannon client on the main thread
// does not share its loop; targets are measured in interleaved rounds (they share the machine's
// load of that moment); and each round also reads the server thread's own CPU time
// (process.threadCpuUsage in the worker), so CPU per request tells a change apart from the load
// of the other jobs on the machine, which moves req/s by half between runs.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Session } from "node:inspector/promises";
import { parseArgs } from "node:util";
import { Worker, parentPort } from "node:worker_threads";
import { formatRatio, loadLine, median } from "./stats.ts";

export interface Ready {
  url: string;
  key?: string;
  body?: string;
}

export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
export const autocannon = createRequire(import.meta.url)("autocannon") as (opts: object) => Promise<CannonResult>;

type Command = { cmd: "cpu" } | { cmd: "profile-start" } | { cmd: "profile-stop"; file: string } | { cmd: "stop" };

/** Worker side: serves, announces itself, then answers the main thread's commands. */
export async function serveFromWorker(serve: () => Promise<Ready & { close(): Promise<void> }>): Promise<void> {
  const server = await serve();
  const port = parentPort!;
  let session: Session | undefined;
  port.postMessage({ url: server.url, key: server.key, body: server.body } satisfies Ready);
  port.on("message", async (command: Command) => {
    if (command.cmd === "cpu") {
      const { user, system } = process.threadCpuUsage();
      port.postMessage({ cpu: user + system, system });
    } else if (command.cmd === "profile-start") {
      session = new Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 200 });
      await session.post("Profiler.start");
      port.postMessage({ done: true });
    } else if (command.cmd === "profile-stop") {
      const { profile } = await session!.post("Profiler.stop");
      writeFileSync(command.file, JSON.stringify(profile));
      session!.disconnect();
      port.postMessage({ done: true });
    } else {
      await server.close();
      process.exit(0);
    }
  });
}

export interface TargetWorker {
  ready: Ready;
  /** The server thread's CPU time so far, µs: user + system, and system alone (the kernel's share: socket writes, wake-ups). */
  cpu(): Promise<{ cpu: number; system: number }>;
  command(c: Command): Promise<unknown>;
  stop(): void;
}

/** Main side: starts `file` as a worker with `workerData` and waits for its Ready. */
export function startTargetWorker(file: URL, workerData: object, env: NodeJS.ProcessEnv = process.env): Promise<TargetWorker> {
  const worker = new Worker(file, { workerData, env });
  const command = (c: Command) => new Promise<unknown>((resolve) => {
    worker.once("message", resolve);
    worker.postMessage(c);
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (ready: Ready) => resolve({
      ready,
      command,
      cpu: async () => (await command({ cmd: "cpu" })) as { cpu: number; system: number },
      stop: () => worker.postMessage({ cmd: "stop" }),
    }));
    worker.once("error", reject);
  });
}

export interface TargetRounds {
  rps: number[];
  p99: number[];
  /** Server-thread CPU per completed request in each round, µs. */
  cpuPerRequest: number[];
  /** The part of it spent in the kernel (system time), µs. */
  systemCpuPerRequest: number[];
  /** The autocannon client's (main thread's) CPU per completed request, µs: when it is near the server's, the client bounds the rate. */
  clientCpuPerRequest: number[];
  failures: number;
}

export interface RoundsOptions {
  rounds: number;
  duration: number;
  /** When set, each worker's CPU profile of all rounds is written to `<dir>/<target>.cpuprofile`. */
  cpuProfDir?: string;
}

/**
 * Runs `rounds` rounds; in each, every target is driven for `duration` seconds, one after the
 * other, so the per-round ratios compare targets under the same load.
 */
export async function runRounds<T extends string>(
  servers: Record<T, TargetWorker>,
  drive: (ready: Ready, duration: number) => Promise<CannonResult>,
  options: RoundsOptions,
): Promise<Record<T, TargetRounds>> {
  const targets = Object.keys(servers) as T[];
  const result = Object.fromEntries(targets.map((t) => [t, { rps: [], p99: [], cpuPerRequest: [], systemCpuPerRequest: [], clientCpuPerRequest: [], failures: 0 }])) as unknown as Record<T, TargetRounds>;
  for (const t of targets) await drive(servers[t].ready, 1); // warm-up: compiled code, prepared statements, caches
  if (options.cpuProfDir) for (const t of targets) await servers[t].command({ cmd: "profile-start" });
  for (let round = 0; round < options.rounds; round++) {
    for (const t of targets) {
      const before = await servers[t].cpu();
      const client = process.threadCpuUsage();
      const r = await drive(servers[t].ready, options.duration);
      const clientUsed = process.threadCpuUsage(client);
      const after = await servers[t].cpu();
      const cpu = after.cpu - before.cpu;
      result[t].clientCpuPerRequest.push(r.requests.total ? (clientUsed.user + clientUsed.system) / r.requests.total : NaN);
      result[t].rps.push(r.requests.average);
      result[t].p99.push(r.latency.p99);
      result[t].cpuPerRequest.push(r.requests.total ? cpu / r.requests.total : NaN);
      result[t].systemCpuPerRequest.push(r.requests.total ? (after.system - before.system) / r.requests.total : NaN);
      result[t].failures += r.non2xx + r.errors;
    }
  }
  if (options.cpuProfDir) {
    for (const t of targets) await servers[t].command({ cmd: "profile-stop", file: path.join(options.cpuProfDir, `${t}.cpuprofile`) });
  }
  return result;
}

const list = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(", ");

/** One line per target: median req/s, p99, server-thread CPU per request (and its kernel part), and the rounds. */
export function formatTarget(label: string, r: TargetRounds): string {
  const failed = r.failures ? `; ${r.failures} non-2xx or errors` : "";
  return `  ${label.padEnd(34)} ${String(Math.round(median(r.rps))).padStart(6)} req/s  p99 ${median(r.p99)} ms  CPU ${median(r.cpuPerRequest).toFixed(1)} µs/req (system ${median(r.systemCpuPerRequest).toFixed(1)}; client ${median(r.clientCpuPerRequest).toFixed(1)})${failed}\n`
    + `  ${"".padEnd(34)} rounds ${list(r.rps)} req/s; ${list(r.cpuPerRequest, 1)} µs/req`;
}

/** "a / b: req/s as the median of per-round ratios (goal), and the same ratio of CPU per request". */
export function formatGoal(label: string, a: TargetRounds, b: TargetRounds, goal?: number, goalName?: string): string {
  const cpu = median(a.cpuPerRequest) / median(b.cpuPerRequest);
  return `  ${label}: ${formatRatio(a.rps, b.rps, goal, goalName)}; server CPU per request ${cpu.toFixed(2)}x`;
}

export { loadLine };

/** The targets of an HTTP path: the bare route, the platform on SQLite, and on PostgreSQL when given a database. */
export type Target = "bare" | "platform" | "postgres";

/** One HTTP path compared with its bare route (http-bench.ts, accept-bench.ts). */
export interface BareComparison {
  /** the first line, before the load */
  heading: string;
  /** the module whose worker serves a target: its workerData carries `{ target, databaseUrl }` */
  file: URL;
  drive: (ready: Ready, duration: number) => Promise<CannonResult>;
  labels: { bare: string; platform: string };
  goal: number;
  goalName: string;
}

export interface BareComparisonOptions extends RoundsOptions {
  databaseUrl?: string;
}

/** Starts the targets in their workers, runs the interleaved rounds and prints targets and ratios. */
export async function compareWithBare(c: BareComparison, { databaseUrl, ...rounds }: BareComparisonOptions): Promise<void> {
  const targets: Target[] = databaseUrl ? ["bare", "platform", "postgres"] : ["bare", "platform"];
  const servers = {} as Record<Target, TargetWorker>;
  console.log(`${c.heading}, ${rounds.rounds} interleaved rounds x ${rounds.duration} s per target; ${loadLine()} before`);
  try {
    for (const target of targets) {
      // A shared store takes its server key from the environment (decision P6), never from a file.
      const env = target === "postgres" ? { ...process.env, PLATFORM_SERVER_KEY: randomBytes(32).toString("base64") } : process.env;
      servers[target] = await startTargetWorker(c.file, { target, databaseUrl: target === "postgres" ? databaseUrl : "" }, env);
    }
    const r = await runRounds(servers, c.drive, rounds);
    console.log(formatTarget(c.labels.bare, r.bare));
    console.log(formatTarget(c.labels.platform, r.platform));
    if (r.postgres) console.log(formatTarget("platform on PostgreSQL", r.postgres));
    console.log(formatGoal("platform / bare", r.platform, r.bare, c.goal, c.goalName));
    if (r.postgres) console.log(formatGoal("PostgreSQL / bare", r.postgres, r.bare));
    if (r.postgres) console.log(formatGoal("PostgreSQL / SQLite", r.postgres, r.platform));
    console.log(`  ${loadLine()} after`);
  } finally {
    for (const s of Object.values(servers) as TargetWorker[]) s.stop();
  }
}

/**
 * The command line of a bench run alone: `[--rounds 5] [--duration 5] [--connections N]
 * [--skip-postgres] [--cpu-prof DIR]`, with a throwaway PostgreSQL unless skipped.
 */
export async function runAlone(defaultConnections: number, run: (o: BareComparisonOptions & { connections: number }) => Promise<void>): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: String(defaultConnections) },
      rounds: { type: "string", default: "5" },
      "skip-postgres": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
    },
  });
  const cpuProfDir = values["cpu-prof"];
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const postgres = values["skip-postgres"] ? undefined : await (await import("../test/support/postgres.ts")).startPostgres();
  try {
    await run({ duration: Number(values.duration), connections: Number(values.connections), rounds: Number(values.rounds), databaseUrl: postgres && (await postgres.newDatabase()), cpuProfDir });
  } finally {
    await postgres?.stop();
  }
}
