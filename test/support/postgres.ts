// A throwaway PostgreSQL cluster for tests: Debian's postgresql binaries, initdb into a temporary
// folder, listening on a free loopback port only (no Unix socket), fsync on like production.
// PostgreSQL refuses to run as root, so when the tests run as root the cluster runs as the
// `postgres` user that the Debian package creates; as any other user it runs as that user.
// Each suite takes a database of its own (`newDatabase`), so suites never see each other's rows.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../../conformance/scripts/free-port.ts";
import { stdinWatchdog } from "./stdin-watchdog.ts";
import { requireTool } from "./system-tools.ts";

const bin = "/usr/lib/postgresql/15/bin";

// Runs postgres ("$@") and stops it when our end of its stdin closes: on stop(), and also when
// the test process dies in any way (a timeout, SIGKILL), so no cluster outlives its tests, and
// then removes its folder ($PG_TEST_ROOT). The stop is an immediate shutdown (SIGQUIT): the
// cluster is thrown away, so a shutdown checkpoint (seconds of flushing) would be wasted.
const watchdog = stdinWatchdog("QUIT", "PG_TEST_ROOT");

export interface PostgresCluster {
  /** Connection URL of the cluster's `postgres` database (superuser, no password, loopback). */
  url: string;
  /** Creates a database (empty, or a copy of `template`) and answers its URL. */
  newDatabase(template?: string): Promise<string>;
  stop(): Promise<void>;
}

/** As root: run as the package's `postgres` user; otherwise as ourselves. */
function runAs(): { uid: number; gid: number; prefix: string[] } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
  const [uid, gid] = [id("-u"), id("-g")];
  return {
    uid,
    gid,
    prefix: ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"],
  };
}

function run(argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], cwd: "/" });
    let out = "";
    child.stdout!.on("data", (c) => (out += c));
    child.stderr!.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${argv.join(" ")}: ${out}`)),
    );
  });
}

export async function startPostgres(): Promise<PostgresCluster> {
  requireTool("PostgreSQL (initdb)", `${bin}/initdb`);
  requireTool("PostgreSQL (postgres)", `${bin}/postgres`);
  const user = runAs();
  const root = mkdtempSync(path.join(tmpdir(), "pg-test-"));
  if (user) chownSync(root, user.uid, user.gid);
  const data = path.join(root, "data");
  const prefix = user?.prefix ?? [];
  // --no-sync only skips initdb's final flush of a cluster we throw away; the server runs with fsync.
  await run([
    ...prefix,
    `${bin}/initdb`,
    "-D",
    data,
    "-U",
    "postgres",
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
  ]);
  let server: ChildProcess | undefined;
  let url = "";
  let log = "";
  // The free port may be taken between our look and the server's bind: try a few.
  for (let attempt = 0; attempt < 5 && !server; attempt++) {
    const port = await freePort();
    const child = spawn(
      prefix[0] ?? "/bin/sh",
      [
        ...prefix.slice(1),
        ...(prefix.length ? ["/bin/sh"] : []),
        "-c",
        watchdog,
        "sh",
        `${bin}/postgres`,
        "-D",
        data,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `port=${port}`,
        "-c",
        "unix_socket_directories=",
        "-c",
        "fsync=on",
        // Small: several test files may run a cluster at once on a 2-core machine.
        "-c",
        "shared_buffers=16MB",
        "-c",
        "max_connections=60",
        "-c",
        "autovacuum=off",
      ],
      { stdio: ["pipe", "ignore", "pipe"], cwd: "/", env: { ...process.env, PG_TEST_ROOT: root } },
    );
    child.stderr!.on("data", (c) => (log += c));
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    if (await ready(url, child)) server = child;
    else child.stdin!.end();
  }
  if (!server) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`postgres did not start: ${log}`);
  }
  const running = server;
  let n = 0;
  return {
    url,
    async newDatabase(template) {
      const name = `t${process.pid}_${++n}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        // A template must have no sessions; a pool just closed may still have some on the
        // server's side for a moment (pg's pool.end() does not wait for them to go).
        for (let attempt = 0; ; attempt++) {
          try {
            await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== "55006" || attempt >= 200) throw error;
            await new Promise((r) => setTimeout(r, 25));
          }
        }
      } finally {
        await admin.end();
      }
      return url.replace(/\/postgres$/, `/${name}`);
    },
    async stop() {
      if (running.exitCode === null) {
        const exited = new Promise((resolve) => running.once("exit", resolve));
        running.stdin!.end();
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function ready(url: string, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return true;
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return false;
}
