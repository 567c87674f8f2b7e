// Several instances of the server on one PostgreSQL behind nginx (issue 15): a throwaway cluster
// (postgres.ts), `count` processes of `node server/main.ts` (server-process.ts) with the same
// DATABASE_URL and PLATFORM_SERVER_KEY, each with its own DATA_DIR and kernel-chosen HTTP, DNS
// and SMTP ports, and nginx round-robin over them (nginx.ts). The instances start at once, so
// their migrations race for the advisory lock as a rolling deployment's would.
// stop() ends every process and removes every folder; each piece also dies with the test process.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { startNginx, type Proxy } from "./nginx.ts";
import { startPostgres, type PostgresCluster } from "./postgres.ts";
import { startServerProcess, type ServerProcess } from "./server-process.ts";

const root = path.resolve(import.meta.dirname, "../..");
const admin = path.join(root, "server/console/platform-admin.ts");

export interface ScaleOut {
  databaseUrl: string;
  /** The instances, each reachable directly at `url`. */
  instances: ServerProcess[];
  /** nginx in front of all of them. */
  proxy: Proxy;
  /** A pool on the database, for looking at rows (jobs, leases) the API does not show. */
  db: pg.Pool;
  /** The console (platform-admin) on the same database; answers its stdout. */
  admin(...args: string[]): Promise<string>;
  /** A project and an API key with every scope and a limit the test chooses. */
  project(name: string, rateLimit?: number): Promise<{ id: string; key: string }>;
  stop(): Promise<void>;
}

export interface ScaleOutOptions {
  count?: number;
  /** More environment for every instance (relay port, loopback webhooks, ...). */
  env?: Record<string, string>;
}

export async function startScaleOut(options: ScaleOutOptions = {}): Promise<ScaleOut> {
  const count = options.count ?? 2;
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    // Last started, first stopped: the proxy, the instances, then the cluster under them.
    for (const clean of cleanups.reverse()) await clean();
    cleanups.length = 0;
  };
  try {
    const cluster: PostgresCluster = await startPostgres();
    cleanups.push(() => cluster.stop());
    const databaseUrl = await cluster.newDatabase();
    // The key every instance seals and opens secrets with (decision P6).
    const shared = {
      DATABASE_URL: databaseUrl,
      PLATFORM_SERVER_KEY: randomBytes(32).toString("base64"),
    };
    const dataDirs = Array.from({ length: count }, (_, i) =>
      mkdtempSync(path.join(tmpdir(), `scale-out-${i}-`)),
    );
    cleanups.push(() => dataDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
    const started = await Promise.allSettled(
      dataDirs.map((dir) => startServerProcess({ ...options.env, ...shared, DATA_DIR: dir })),
    );
    const instances = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    cleanups.push(() => Promise.all(instances.map((i) => i.stop())).then(() => {}));
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    // Traffic only once every instance says it is ready (decision OP1), as a balancer would wait.
    await Promise.all(instances.map((i) => untilReady(i.url)));
    const proxy = await startNginx(instances.map((i) => i.url));
    cleanups.push(() => proxy.stop());
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    cleanups.push(() => db.end());
    const consoleEnv = { ...process.env, ...shared, DATA_DIR: dataDirs[0] };
    const runAdmin = async (...args: string[]) =>
      (
        await promisify(execFile)(process.execPath, [admin, ...args], {
          env: consoleEnv,
          cwd: root,
        })
      ).stdout;
    return {
      databaseUrl,
      instances,
      proxy,
      db,
      admin: runAdmin,
      async project(name, rateLimit = 1_000_000) {
        const id = /(prj_\w+)/.exec(await runAdmin("projects", "create", name))![1];
        const key = /(platform_sk_[A-Za-z0-9]+)\s*$/.exec(
          await runAdmin(
            "keys",
            "create",
            "--project",
            id,
            "--scopes",
            "all",
            "--rate-limit",
            String(rateLimit),
          ),
        )![1];
        return { id, key };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls GET /readyz until 200; fails with the last answer when the instance never gets ready. */
async function untilReady(url: string): Promise<void> {
  let last = "";
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${url}/readyz`).catch((error: Error) => ({
      status: 0,
      text: async () => error.message,
    }));
    if (res.status === 200) return;
    last = `${res.status} ${await res.text()}`;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never got ready: ${last}`);
}
