// The job queue and its worker on PostgreSQL (decision P2): worker.test.ts's behaviours, and what
// several instances add: a job runs once across instances (SKIP LOCKED), and a dead instance's
// leases are void at once.
import { beforeAll, describe, expect, it } from "vitest";
import { useStore, type Connection } from "../test/backends.ts";
import type { Pg } from "../db/postgres/pg.ts";
import { manualClock, systemClock, type ManualClock } from "./clock.ts";
import { PgJobQueue } from "./pg-job-queue.ts";
import { createWorker } from "./worker.ts";
import type { JobHandler } from "./worker.ts";
import type { Tx } from "../db/tx.ts";

const pgOf = (c: Connection): Pg => {
  if (c.backend !== "postgres") throw new Error("postgres only");
  return c.pg;
};

describe("job queue on postgres", () => {
  const store = useStore("postgres");
  let db: Pg;
  let clock: ManualClock;
  let queue: PgJobQueue;
  beforeAll(async () => {
    db = pgOf(store.main);
    await db.query("CREATE TABLE log (kind TEXT, attempt INTEGER)");
  });
  // Each test on an empty queue and a kind of job of its own.
  let kind = "";
  let n = 0;
  const fresh = async () => {
    await db.query("DELETE FROM jobs");
    kind = `k${++n}`;
    clock = manualClock();
    queue = new PgJobQueue(db, clock);
  };
  const worker = (handler: JobHandler, extra = {}) => createWorker({ queue, clock, handlers: { [kind]: handler }, ...extra });
  const enqueue = (payload: unknown, options = {}) => db.tx((c) => queue.enqueue(c, kind, payload, options));
  const pending = () => queue.count(kind);

  it("an enqueue inside a rolled-back transaction leaves no job", async () => {
    await fresh();
    await expect(
      db.tx(async (c) => {
        await queue.enqueue(c, kind, { n: 1 });
        throw new Error("state change failed");
      }),
    ).rejects.toThrow("state change failed");
    expect(await pending()).toBe(0);
  });

  it("runs a due job once, and not a job that is not due yet", async () => {
    await fresh();
    const seen: unknown[] = [];
    const w = worker(async (job) => (seen.push(job.payload), { done: true }));
    await enqueue({ n: 1 });
    await enqueue({ n: 2 }, { runAt: clock.now() + 60_000 });
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    clock.advance(59_999);
    expect(await w.drain()).toBe(0);
    clock.advance(1);
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await pending()).toBe(0);
  });

  it("a retry runs again at its time with the attempt counted, and the write commits with it", async () => {
    await fresh();
    const w = worker(async (job) => {
      const write = async (tx: Tx) => {
        if (tx.kind === "postgres") await tx.c.query("INSERT INTO log VALUES ($1, $2)", [kind, job.attempts]);
      };
      return job.attempts < 3 ? { retryAt: clock.now() + 1000, write } : { done: true, write };
    });
    await enqueue({});
    expect(await w.drain()).toBe(1);
    clock.advance(1000);
    expect(await w.drain()).toBe(1);
    clock.advance(1000);
    expect(await w.drain()).toBe(1);
    expect((await db.query<{ attempt: number }>("SELECT attempt FROM log WHERE kind = $1 ORDER BY attempt", [kind])).map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(await pending()).toBe(0);
  });

  it("a handler that throws is retried later, not lost; a failing write leaves the job to run again", async () => {
    await fresh();
    let calls = 0;
    const w = worker(async () => {
      calls++;
      if (calls === 1) throw new Error("boom");
      if (calls === 2) return { done: true, write: async (tx) => void (tx.kind === "postgres" && (await tx.c.query("SELECT no_such_function()"))) };
      return { done: true };
    }, { leaseMs: 5000 });
    await enqueue({});
    await w.drain();
    expect(await pending()).toBe(1);
    clock.advance(2000);
    await w.drain();
    expect(calls).toBe(2);
    expect(await pending()).toBe(1);
    clock.advance(5000);
    await w.drain();
    expect(calls).toBe(3);
    expect(await pending()).toBe(0);
  });

  it("holds at most perGroup jobs of one group at once, while other groups proceed", async () => {
    await fresh();
    let running = 0;
    let peak = 0;
    const finished: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const fallback = setTimeout(open, 2000);
    const w = worker(async (job) => {
      const { group } = job.payload as { group: string };
      if (group === "slow") {
        peak = Math.max(peak, ++running);
        await gate;
        running--;
      }
      finished.push(group);
      if (finished.filter((g) => g === "fast").length === 3) open();
      return { done: true };
    }, { perGroup: 2, concurrency: 8 });
    for (let i = 0; i < 6; i++) await enqueue({ group: "slow" }, { group: "slow" });
    for (let i = 0; i < 3; i++) await enqueue({ group: "fast" }, { group: "fast" });
    expect(await w.drain()).toBe(9);
    clearTimeout(fallback);
    expect(peak).toBe(2);
    expect(finished.slice(0, 3)).toEqual(["fast", "fast", "fast"]);
  });

  it("cancelWhere removes the matching jobs of a kind only", async () => {
    await fresh();
    await enqueue({ webhookId: "wh_a" });
    await enqueue({ webhookId: "wh_b" });
    await enqueue({ webhookId: "wh_a" });
    expect(await queue.cancelWhere(db.pool, kind, "$.webhookId", "wh_a")).toBe(2);
    expect(await pending()).toBe(1);
  });

  it("a job leased by an instance that died is claimed at once by another; a live holder's lease holds", async () => {
    await fresh();
    await enqueue({ n: 1 });
    const dying = pgOf(await store.connect());
    const other = new PgJobQueue(dying, clock);
    expect(await other.claim(10, 600_000, () => true)).toHaveLength(1);
    // The holder is alive: nobody else may take the job while its lease holds.
    expect(await queue.claim(10, 600_000, () => true)).toHaveLength(0);
    // The holder goes away (kill -9 closes its sessions the same way). pg's pool.end() does not
    // wait for the server to see the sockets close, so wait for its sessions to be gone.
    await dying.close();
    while ((await db.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1", [dying.instanceName])).length) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const [again] = await queue.claim(10, 600_000, () => true);
    expect(again.attempts).toBe(2);
  });

  it("two instances with a worker each run 1,000 jobs, each exactly once", async () => {
    await fresh();
    const second = pgOf(await store.connect());
    const queues = [new PgJobQueue(db, systemClock), new PgJobQueue(second, systemClock)];
    const runs = new Map<number, number>();
    const byInstance = [0, 0];
    let all: () => void = () => {};
    const finished = new Promise<void>((r) => (all = r));
    const workers = queues.map((q, i) =>
      createWorker({
        queue: q,
        clock: systemClock,
        pollMs: 50,
        handlers: {
          bulk: async (job) => {
            const { n } = job.payload as { n: number };
            runs.set(n, (runs.get(n) ?? 0) + 1);
            byInstance[i]++;
            if (runs.size === 1000) all();
            return { done: true };
          },
        },
      }),
    );
    workers.forEach((w) => w.start());
    await db.tx(async (c) => {
      for (let n = 0; n < 1000; n++) await queues[0].enqueue(c, "bulk", { n });
    });
    await finished;
    await Promise.all(workers.map((w) => w.stop()));
    expect(runs.size).toBe(1000);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect(byInstance[0] + byInstance[1]).toBe(1000);
    expect(await queues[0].count("bulk")).toBe(0);
    console.log(`1,000 jobs on two instances: ${byInstance.join(" + ")}`);
  });
});
