// The platform's authoritative server against NSD and PowerDNS (issue 32): the same zone
// (exported from the platform's own records by bench-platform-process.ts), the same dnsperf
// query mix, interleaved rounds, one worker/thread each, on loopback. Every server is started
// here, privately: its own config, pid and working directory under a temp folder, a free
// loopback port, never the system service and never port 53; all are stopped in `finally`
// and on SIGINT. Used by `npm run bench:dns` (bench.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import dgram from "node:dgram";
import { tmpdir } from "node:os";
import path from "node:path";
import { formatRatio, loadLine, median, recordGoal } from "../stats.ts";
import { queryUdp, type Reply } from "../../server/dns/wire-client.ts";

export const INSTALL_COMMAND = "sudo sh scripts/install-system-deps.sh --bench";

/** Existing and missing names, A, AAAA, MX, TXT (short and a 600-byte DKIM key), the CNAME chain. */
export const QUERY_MIX = [
  "web.example.test A",
  "web.example.test AAAA",
  "www.example.test A",
  "chain.example.test A",
  "chain.example.test AAAA",
  "example.test MX",
  "example.test TXT",
  "s1._domainkey.example.test TXT",
  "mx.example.test A",
  "web.example.test MX",
  "nothere.example.test A",
  "missing.example.test AAAA",
];

type Peer = "nsd" | "pdns";
/** `floor`: a bare node:dgram socket sending precomputed replies (bench-floor-process.ts), Node's own cost per query. */
type Target = "platform" | "floor" | Peer;
const TARGETS: Target[] = ["nsd", "pdns", "floor", "platform"];
const LABEL: Record<Target, string> = { platform: "platform", floor: "floor", pdns: "PowerDNS", nsd: "NSD" };

const SEARCH_PATH = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/sbin"];
const which = (command: string) =>
  SEARCH_PATH.map((dir) => path.join(dir, command)).find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

/** PowerDNS's bind backend is a module, not a command: /usr/lib/<triplet>/pdns/libbindbackend.so. */
function bindBackend(): string | undefined {
  for (const dir of ["/usr/lib", ...readdirSync("/usr/lib").map((name) => path.join("/usr/lib", name))]) {
    const file = path.join(dir, "pdns", "libbindbackend.so");
    try {
      accessSync(file, constants.R_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The Debian packages of the peers that are not installed (empty when all are). */
export function missingPeers(): string[] {
  const missing: string[] = [];
  if (!which("nsd")) missing.push("nsd");
  if (!which("pdns_server")) missing.push("pdns-server");
  if (!bindBackend()) missing.push("pdns-backend-bind");
  if (!which("dnsperf")) missing.push("dnsperf");
  return missing;
}

/** A port free on both UDP and TCP of 127.0.0.1 (asked of the kernel, then released for the server). */
async function freePort(): Promise<number> {
  for (;;) {
    const tcp = createServer();
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    const port = (tcp.address() as { port: number }).port;
    const udp = dgram.createSocket("udp4");
    const free = await new Promise<boolean>((resolve) => {
      udp.once("error", () => resolve(false));
      udp.bind(port, "127.0.0.1", () => resolve(true));
    });
    await new Promise<void>((resolve) => (free ? udp.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (free) return port;
  }
}

/** CPU seconds (utime, stime) of a process and all its descendants (NSD serves from forked children). */
function cpuSeconds(root: number): { user: number; system: number } {
  const parent = new Map<number, number>();
  const ticks = new Map<number, [number, number]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name, which may hold spaces: state ppid ... utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    parent.set(Number(entry), Number(fields[1]));
    ticks.set(Number(entry), [Number(fields[11]), Number(fields[12])]);
  }
  const total = { user: 0, system: 0 };
  for (const [pid, [user, system]] of ticks) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        total.user += user / 100; // USER_HZ is 100 on Linux
        total.system += system / 100;
        break;
      }
    }
  }
  return total;
}

interface Running {
  target: Target;
  port: number;
  child: ChildProcess;
  log: () => string;
}

const children = new Set<ChildProcess>();

function launch(command: string, args: string[], cwd: string, logFile: string): { child: ChildProcess; log: () => string } {
  const child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    writeFileSync(logFile, output);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, log: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
}

/** Wait until the server answers the zone's SOA with NOERROR. */
async function ready(running: Running): Promise<void> {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) break;
    try {
      const reply = await queryUdp(running.port, { name: "example.test", type: "SOA" }, "127.0.0.1", 300);
      if (reply.rcode === "NOERROR" && reply.answers?.length === 1) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${LABEL[running.target]} did not start on 127.0.0.1:${running.port}:\n${running.log()}`);
}

async function startPlatform(dir: string, zonePath: string): Promise<Running> {
  const port = await freePort();
  const script = new URL("./bench-platform-process.ts", import.meta.url).pathname;
  const { child, log } = launch(process.execPath, [script, zonePath, String(port)], dir, path.join(dir, "platform.log"));
  const running = { target: "platform" as const, port, child, log };
  await ready(running);
  return running;
}

async function startFloor(dir: string): Promise<Running> {
  const port = await freePort();
  const script = new URL("./bench-floor-process.ts", import.meta.url).pathname;
  const { child, log } = launch(process.execPath, [script, String(port)], dir, path.join(dir, "floor.log"));
  const running = { target: "floor" as const, port, child, log };
  await ready(running);
  return running;
}

async function startNsd(dir: string, zonePath: string): Promise<Running> {
  const port = await freePort();
  const config = path.join(dir, "nsd.conf");
  writeFileSync(
    config,
    [
      "server:",
      `  ip-address: 127.0.0.1@${port}`,
      "  server-count: 1", // one serving process, as the platform has one event loop
      '  username: ""', // stay the user we are; no privilege drop needed off port 53
      '  chroot: ""',
      `  zonesdir: "${dir}"`,
      '  database: ""',
      `  zonelistfile: "${dir}/zone.list"`,
      `  xfrdfile: "${dir}/xfrd.state"`,
      `  xfrdir: "${dir}"`,
      `  pidfile: "${dir}/nsd.pid"`,
      `  logfile: "${dir}/nsd.log"`,
      // No NS RRset in the authority section of positive answers, as the platform and PowerDNS answer.
      "  minimal-responses: yes",
      "  rrl-ratelimit: 0", // response rate limiting would drop most of one client's queries
      "  rrl-whitelist-ratelimit: 0",
      "remote-control:",
      "  control-enable: no",
      "zone:",
      "  name: example.test",
      `  zonefile: "${zonePath}"`,
      "",
    ].join("\n"),
  );
  // -d: stay in the foreground so the pid we hold is NSD's main process (its server child is counted through it).
  const { child, log } = launch(which("nsd")!, ["-d", "-c", config], dir, path.join(dir, "nsd.out"));
  const running = { target: "nsd" as const, port, child, log: () => log() + readIfAny(path.join(dir, "nsd.log")) };
  await ready(running);
  return running;
}

async function startPdns(dir: string, zonePath: string): Promise<Running> {
  const port = await freePort();
  writeFileSync(path.join(dir, "named.conf"), `zone "example.test" { type master; file "${zonePath}"; };\n`);
  writeFileSync(
    path.join(dir, "pdns.conf"),
    [
      "launch=bind",
      `bind-config=${dir}/named.conf`,
      "local-address=127.0.0.1",
      `local-port=${port}`,
      `socket-dir=${dir}`,
      "daemon=no",
      "guardian=no",
      // One receiver and one distributor (backend) thread: the fewest PowerDNS runs with.
      "receiver-threads=1",
      "distributor-threads=1",
      "disable-syslog=yes",
      "write-pid=no",
      "webserver=no",
      "api=no",
      // No security-status query through the system resolver: the bench stays on loopback.
      "security-poll-suffix=",
      "",
    ].join("\n"),
  );
  const { child, log } = launch(which("pdns_server")!, [`--config-dir=${dir}`], dir, path.join(dir, "pdns.out"));
  const running = { target: "pdns" as const, port, child, log };
  await ready(running);
  return running;
}

function readIfAny(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Record data as short text (TXT character-strings decoded, long values cut) for the difference report. */
function printable(data: unknown): string {
  const text = JSON.stringify(data, (_key, value) => (value?.type === "Buffer" ? Buffer.from(value.data).toString() : value));
  return text.length > 80 ? `${text.slice(0, 60)}...(${text.length} chars)` : text;
}

/** What a resolver sees of an answer: rcode, AA and each section without TTLs or order. */
function shape(reply: Reply): string {
  const records = (section: Reply["answers"]) =>
    (section ?? [])
      .filter((record) => record.type !== "OPT")
      .map((record) => `${record.name.toLowerCase()} ${record.type} ${printable("data" in record ? record.data : "")}`)
      .sort();
  return JSON.stringify({ rcode: reply.rcode, aa: reply.flag_aa, answers: records(reply.answers), authority: records(reply.authorities) });
}

/** Every mix question asked of every server; the differences are printed so a gap is not a faster wrong answer. */
async function compareAnswers(servers: Running[]): Promise<string[]> {
  const differences: string[] = [];
  for (const line of QUERY_MIX) {
    const [name, type] = line.split(" ");
    const shapes = await Promise.all(servers.map(async (s) => shape(await queryUdp(s.port, { name, type, edns: 1232 }))));
    servers.forEach((s, i) => {
      if (shapes[i] !== shapes[0]) differences.push(`${line}: ${LABEL[s.target]} ${shapes[i]} vs platform ${shapes[0]}`);
    });
  }
  return differences;
}

interface Run {
  qps: number;
  completed: number;
  lost: number;
  /** CPU of the server during the run: user space, and the kernel (mostly the datagram syscalls). */
  cpuSeconds: number;
  userSeconds: number;
  systemSeconds: number;
}

async function dnsperf(port: number, queryFile: string, seconds: number, dir: string): Promise<Run> {
  const { child, log } = launch(
    which("dnsperf")!,
    // One client, one thread, 100 outstanding, EDNS 0 (as resolvers send it), for `seconds`.
    ["-s", "127.0.0.1", "-p", String(port), "-d", queryFile, "-l", String(seconds), "-c", "1", "-T", "1", "-q", "100", "-e"],
    dir,
    path.join(dir, "dnsperf.out"),
  );
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  const out = log();
  const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1]);
  const run = { qps: number(/Queries per second:\s+([\d.]+)/), completed: number(/Queries completed:\s+(\d+)/), lost: number(/Queries lost:\s+(\d+)/), cpuSeconds: 0, userSeconds: 0, systemSeconds: 0 };
  if (code !== 0 || !Number.isFinite(run.qps)) throw new Error(`dnsperf failed (exit ${code}):\n${out}`);
  return run;
}

export interface PeerRound {
  round: number;
  runs: Record<Target, Run>;
}

export interface PeerBenchmarkResult {
  rounds: PeerRound[];
  loadBefore: string;
  loadAfter: string;
  differences: string[];
  versions: Record<Peer, string>;
}

/** Start the three servers, check they answer alike, then interleave dnsperf rounds. */
export async function benchmarkPeers({ rounds = 3, seconds = 5 } = {}): Promise<PeerBenchmarkResult> {
  const root = mkdtempSync(path.join(tmpdir(), "dns-peers-bench-"));
  const dirs = Object.fromEntries(["platform", "floor", "nsd", "pdns", "dnsperf"].map((name) => [name, path.join(root, name)]));
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  const zonePath = path.join(root, "example.test.zone");
  const queryFile = path.join(root, "queries.txt");
  writeFileSync(queryFile, QUERY_MIX.join("\n") + "\n");
  const onSigint = () => {
    // SIGTERM, not SIGKILL: NSD stops its forked server child only when it can handle the signal.
    for (const child of children) child.kill("SIGTERM");
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  };
  process.once("SIGINT", onSigint);
  try {
    // The platform first: it writes the zone file the peers load.
    const platform = await startPlatform(dirs.platform, zonePath);
    const servers: Record<Target, Running> = {
      platform,
      floor: await startFloor(dirs.floor),
      nsd: await startNsd(dirs.nsd, zonePath),
      pdns: await startPdns(dirs.pdns, zonePath),
    };
    const differences = await compareAnswers([servers.platform, servers.pdns, servers.nsd, servers.floor]);
    const order = TARGETS;
    // Warm-up: one short run each (JIT, packet caches), not counted.
    for (const target of order) await dnsperf(servers[target].port, queryFile, 1, dirs.dnsperf);
    const loadBefore = loadLine();
    const results: PeerRound[] = [];
    for (let round = 1; round <= rounds; round++) {
      const runs = {} as Record<Target, Run>;
      // Rotate who goes first so any drift of the shared machine spreads over all three.
      for (const target of order.map((_, i) => order[(i + round) % order.length])) {
        const before = cpuSeconds(servers[target].child.pid!);
        const run = await dnsperf(servers[target].port, queryFile, seconds, dirs.dnsperf);
        const after = cpuSeconds(servers[target].child.pid!);
        run.userSeconds = after.user - before.user;
        run.systemSeconds = after.system - before.system;
        run.cpuSeconds = run.userSeconds + run.systemSeconds;
        runs[target] = run;
      }
      results.push({ round, runs });
    }
    const loadAfter = loadLine();
    return { rounds: results, loadBefore, loadAfter, differences, versions: { nsd: peerVersion(servers.nsd), pdns: peerVersion(servers.pdns) } };
  } finally {
    await Promise.all([...children].map(stop));
    process.off("SIGINT", onSigint);
    rmSync(root, { recursive: true, force: true });
  }
}

function peerVersion(running: Running): string {
  return /(NSD [\d.]+|PowerDNS Authoritative Server [\d.]+)/.exec(running.log())?.[1] ?? "version unknown";
}

const us = (run: Run) => (run.completed > 0 ? ((run.cpuSeconds / run.completed) * 1e6).toFixed(1) : "-");

/** Issue 32's goals: throughput against each peer, as the median of per-round ratios. */
export const DNS_GOALS = { pdns: 1.0, nsd: 0.8 } as const;

/** The report `npm run bench:dns` (and the DNS part of `npm run bench`) prints. */
export function formatPeers(result: PeerBenchmarkResult, seconds: number): string[] {
  const lines = [
    `Peers: dnsperf -c 1 -T 1 -q 100 -e, ${seconds} s per run, ${QUERY_MIX.length}-question mix, ${result.rounds.length} interleaved rounds (${result.versions.nsd}, ${result.versions.pdns}; floor = bare node:dgram socket sending precomputed replies)`,
    `  before: ${result.loadBefore}`,
  ];
  for (const { round, runs } of result.rounds) {
    const cells = TARGETS.map((t) => `${LABEL[t]} ${Math.round(runs[t].qps)} qps ${us(runs[t])} us/q${runs[t].lost ? ` lost ${runs[t].lost}` : ""}`);
    lines.push(`  round ${round}: ${cells.join(", ")}`);
  }
  lines.push(`  after:  ${result.loadAfter}`);
  const series = (target: Target, f: (run: Run) => number) => result.rounds.map((r) => f(r.runs[target]));
  const qps = (target: Target) => series(target, (run) => run.qps);
  const perQuery = (target: Target, seconds: (run: Run) => number) => median(series(target, (run) => (seconds(run) / run.completed) * 1e6)).toFixed(1);
  for (const target of TARGETS) {
    const split = `user ${perQuery(target, (r) => r.userSeconds)} + kernel ${perQuery(target, (r) => r.systemSeconds)}`;
    lines.push(`  median ${LABEL[target].padEnd(8)} ${String(Math.round(median(qps(target)))).padStart(7)} qps, CPU ${perQuery(target, (r) => r.cpuSeconds)} us/query (${split})`);
  }
  lines.push(`  platform/PowerDNS ${formatRatio(qps("platform"), qps("pdns"), DNS_GOALS.pdns, "DNS, platform / PowerDNS, queries/s", qps("floor"))}`);
  lines.push(`  platform/NSD      ${formatRatio(qps("platform"), qps("nsd"), DNS_GOALS.nsd, "DNS, platform / NSD, queries/s", qps("floor"))}`);
  lines.push(`  platform/floor    ${formatRatio(qps("platform"), qps("floor"))}`);
  lines.push(`  floor/PowerDNS    ${formatRatio(qps("floor"), qps("pdns"))}; floor/NSD ${formatRatio(qps("floor"), qps("nsd"))}`);
  const cpu = (target: Target) => median(series(target, (run) => (run.cpuSeconds / run.completed) * 1e6));
  recordGoal("DNS, CPU per query, platform / PowerDNS", cpu("platform") / cpu("pdns"), 1, "at most", cpu("floor") / cpu("pdns"));
  lines.push(
    `  CPU per query platform/PowerDNS ${(cpu("platform") / cpu("pdns")).toFixed(2)} (goal at most 1: ${cpu("platform") <= cpu("pdns") ? "met" : "NOT met"}), floor/PowerDNS ${(cpu("floor") / cpu("pdns")).toFixed(2)}`,
  );
  if (result.differences.length > 0) lines.push("  ANSWERS DIFFER (the comparison is not like for like):", ...result.differences.map((d) => `    ${d}`));
  else lines.push(`  answers: all ${QUERY_MIX.length} questions answered alike by all four (rcode, AA, answer and authority sections, TTLs aside)`);
  return lines;
}
