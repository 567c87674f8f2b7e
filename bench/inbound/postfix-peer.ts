// The inbound benchmark's peer (issue 32): a private Postfix instance, what an operator would run
// instead of the platform's MX. Its own main.cf/master.cf, queue and data directories under a
// temp folder, smtpd on a free 127.0.0.1 port only (never port 25, never the system service),
// and virtual(8) delivering each message into a Maildir there: the cleanup daemon fsyncs the
// queue file before smtpd answers 250, virtual(8) fsyncs the Maildir file before it is moved into
// new/ (2 fsyncs per message). Started and stopped by the bench, also on SIGINT/SIGTERM.
// Postfix's master must run as root (it binds as root and runs its daemons as `postfix`).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../conformance/scripts/free-port.ts";
// The one install command of every benchmark peer (NSD, PowerDNS, Postfix, dnsperf).
import { INSTALL_COMMAND } from "../dns/peers-bench.ts";

const POSTFIX = "/usr/sbin/postfix";
const MASTER = "/usr/lib/postfix/sbin/master";
const SMTP_SOURCE = "/usr/sbin/smtp-source";

/** Throws, naming the install command, when Postfix or smtp-source is missing; never a silent skip. */
export function requirePostfix(): void {
  const missing = [POSTFIX, MASTER, SMTP_SOURCE].filter((file) => !existsSync(file));
  if (missing.length) throw new Error(`the inbound bench's peer needs Debian's postfix (missing ${missing.join(", ")}); install it with:  ${INSTALL_COMMAND}`);
  if (process.getuid?.() !== 0) throw new Error("the inbound bench's Postfix peer runs Postfix's master, which must be started as root: run the bench as root (or --skip-inbound)");
}

export interface PostfixPeer {
  port: number;
  /** Messages virtual(8) has moved into the Maildir so far (files in new/ and cur/). */
  delivered(): number;
  /** CPU milliseconds used so far by master and every daemon it ran (live ones and reaped ones). */
  cpuMs(): number;
  /** The tail of Postfix's own log, for an error message. */
  logTail(): string;
  stop(): Promise<void>;
}

/** Starts the instance with one virtual mailbox, `recipient`, and waits for its 220 banner. */
export async function startPostfixPeer(recipient: string): Promise<PostfixPeer> {
  requirePostfix();
  const [local, domain] = recipient.split("@");
  const root = mkdtempSync(path.join(tmpdir(), "postfix-bench-"));
  // Postfix's daemons run as `postfix` and must reach the queue and the Maildir below this.
  chmodSync(root, 0o755);
  const dir = (name: string) => path.join(root, name);
  const uid = idOf("/etc/passwd", "postfix");
  const gid = idOf("/etc/group", "postfix");
  for (const name of ["conf", "queue", "data", "mail"]) mkdirSync(dir(name));
  chownSync(dir("data"), uid, gid);
  chownSync(dir("mail"), uid, gid);
  const port = await freePort();
  writeFileSync(dir("conf/main.cf"), mainCf(root, domain, uid, gid));
  writeFileSync(dir("conf/master.cf"), masterCf(port));
  // texthash: read as is, no postmap; a trailing slash makes the mailbox a Maildir.
  writeFileSync(dir("conf/vmailbox"), `${recipient} ${domain}/${local}/\n`);
  const maildir = dir(`mail/${domain}/${local}`);

  let master: ChildProcess | undefined;
  const killGroup = () => {
    // master leads its own process group (it calls setsid): every daemon it started is in it.
    if (master?.pid) signalGroup(master.pid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  };
  // Ctrl-C or a kill of the bench must not leave Postfix running or its port bound.
  const onSignal = (signal: NodeJS.Signals) => {
    killGroup();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("exit", killGroup);
  const forget = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("exit", killGroup);
  };
  const logTail = () => {
    try {
      return readFileSync(dir("maillog"), "utf8").split("\n").slice(-15).join("\n");
    } catch {
      return "(no maillog)";
    }
  };

  try {
    // `postfix check` creates the queue's subdirectories with their owners and modes.
    execFileSync(POSTFIX, ["-c", dir("conf"), "check"], { stdio: "pipe" });
    // master in the foreground as our child (no -w): its exit is ours to see.
    master = spawn(MASTER, ["-c", dir("conf")], { stdio: "ignore" });
    const exited = new Promise<never>((_, reject) => master!.once("exit", (code) => reject(new Error(`postfix master exited (${code}):\n${logTail()}`))));
    await Promise.race([waitForBanner(port), exited]);
    exited.catch(() => {});
  } catch (error) {
    killGroup();
    forget();
    throw new Error(`the private Postfix did not start: ${(error as Error).message}\n${logTail()}`);
  }
  const pid = master.pid!;
  return {
    port,
    delivered: () => ["new", "cur"].reduce((n, sub) => n + (existsSync(path.join(maildir, sub)) ? readdirSync(path.join(maildir, sub)).length : 0), 0),
    cpuMs: () => groupCpuMs(pid),
    logTail,
    async stop() {
      const done = new Promise((resolve) => (master!.exitCode !== null || master!.signalCode !== null ? resolve(null) : master!.once("exit", resolve)));
      // SIGTERM: master passes it on to its daemons and exits (`postfix abort`); nothing queued
      // matters here. What is still alive after 2 s is killed.
      master!.kill("SIGTERM");
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
      for (let i = 0; i < 40 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      killGroup();
      forget();
      if (await portOpen(port)) throw new Error(`port ${port} is still bound after stopping the private Postfix`);
    },
  };
}

function mainCf(root: string, domain: string, uid: number, gid: number): string {
  return `# The inbound bench's private Postfix (bench/inbound/postfix-peer.ts): loopback only.
compatibility_level = 3.6
config_directory = ${root}/conf
queue_directory = ${root}/queue
data_directory = ${root}/data
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
myhostname = postfix-bench.test
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_recipient_restrictions = permit_mynetworks, reject_unauth_destination
alias_maps =
alias_database =
local_recipient_maps =
biff = no
# A log of its own (postlogd), as a deployed Postfix logs each message too.
maillog_file_prefixes = ${root}
maillog_file = ${root}/maillog
virtual_mailbox_domains = ${domain}
virtual_mailbox_base = ${root}/mail
virtual_mailbox_maps = texthash:${root}/conf/vmailbox
virtual_uid_maps = static:${uid}
virtual_gid_maps = static:${gid}
virtual_minimum_uid = ${Math.min(uid, 100)}
`;
}

/** Debian's master.cf without chroot (the temp folder is no chroot jail) and smtpd on `port` only. */
function masterCf(port: number): string {
  return `127.0.0.1:${port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
proxymap  unix  -       -       n       -       -       proxymap
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`;
}

function idOf(file: string, name: string): number {
  const line = readFileSync(file, "utf8").split("\n").find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no ${name} entry in ${file}: is Debian's postfix installed? ${INSTALL_COMMAND}`);
  return Number(line.split(":")[2]);
}

async function waitForBanner(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const banner = await new Promise<string>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port });
      socket.once("data", (data) => {
        socket.end("QUIT\r\n");
        resolve(data.toString());
      });
      socket.once("error", () => resolve(""));
    });
    if (banner.startsWith("220")) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no 220 banner on 127.0.0.1:${port}`);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const TICKS_PER_SECOND = 100; // USER_HZ: what /proc/<pid>/stat counts in, 100 on Linux

/** /proc/<pid>/stat fields after the command name: [state, ppid, pgrp, ...]. */
function statFields(pid: number | "self"): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * master's own CPU, what its reaped daemons used (cutime/cstime: a daemon that exits after its
 * max_use is counted there once master has waited for it), and each live daemon of its process
 * group. A daemon that exits between two readings moves from the live sum to master's children
 * sum, so differences between readings stay right.
 */
function groupCpuMs(masterPid: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (!f || Number(f[2]) !== masterPid) continue;
    // fields 14-17 of stat (utime, stime, cutime, cstime) are indexes 11-14 here
    ticks += Number(f[11]) + Number(f[12]);
    if (Number(entry) === masterPid) ticks += Number(f[13]) + Number(f[14]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f && Number(f[2]) === pgid && f[0] !== "Z") return true;
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left in the group
  }
}

/** CPU milliseconds of this process's reaped children (smtp-source runs, once each has exited). */
export function reapedChildrenCpuMs(): number {
  const f = statFields("self")!;
  return ((Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND;
}
