// kill -9 of an instance in the middle of its jobs (decision P2): another instance runs every one
// of them at once, not after their 10-minute leases, because a lease is void once its holder's
// sessions are gone; and none is lost.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Pg } from "../db/postgres/pg.ts";
import { useStore } from "../test/backends.ts";
import { systemClock } from "./clock.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { JobQueue } from "./job-queue.ts";
import { createWorker } from "./worker.ts";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("an instance killed with kill -9 on PostgreSQL", () => {
  const store = useStore("postgres");

  it("leaves its claimed jobs to another instance at once, none lost", async () => {
    if (store.main.backend !== "postgres") throw new Error("postgres only");
    const db: Pg = store.main.pg;
    const url = (db.pool.options as { connectionString: string }).connectionString;
    const queue = new JobQueue(storeOnPostgres(db), systemClock);
    await storeOnPostgres(db).transaction(async (tx) => {
      for (let n = 0; n < 40; n++) await queue.enqueue(tx, "stuck", { n });
    });

    // The other instance takes 10 jobs and hangs on them.
    const child = spawn(process.execPath, [path.resolve("server/jobs/test/pg-stuck-instance.ts"), url, "10"], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    const held = new Set<number>();
    let log = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk) => {
        for (const m of String(chunk).matchAll(/holding (\d+)/g)) held.add(Number(m[1]));
        if (held.size === 10) resolve();
      });
      child.stderr!.on("data", (chunk) => (log += chunk));
      child.on("exit", (code) => reject(new Error(`the other instance exited with ${code}: ${log}`)));
    });
    child.removeAllListeners("exit");
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;

    // This instance runs everything, the killed instance's 10 included, with their default lease.
    const ran = new Map<number, number>();
    let all: () => void = () => {};
    const finished = new Promise<void>((resolve) => (all = resolve));
    const worker = createWorker({
      queue,
      clock: systemClock,
      pollMs: 50,
      handlers: {
        stuck: async (job) => {
          ran.set((job.payload as { n: number }).n, job.attempts);
          if (ran.size === 40) all();
          return { done: true };
        },
      },
    });
    worker.start();
    await finished;
    await worker.stop();
    expect([...ran.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    // The held ones were attempted twice: once by the killed instance.
    for (const n of held) expect(ran.get(n)).toBe(2);
    expect(await queue.count("stuck")).toBe(0);
  });
});
