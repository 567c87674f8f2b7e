// The job queue and its worker on a real store, SQLite and PostgreSQL: atomic enqueue, retries on
// a manual clock, per-group concurrency, held jobs given back at stop. (A dead worker's leases:
// leases-released-at-start.test.ts on SQLite, pg-kill.test.ts on PostgreSQL.)
import { beforeEach, describe, expect, it } from "vitest";
import type { Sql, Store } from "../db/sql.ts";
import { backends, sql, useStore } from "../test/backends.ts";
import type { ManualClock } from "./clock.ts";
import { JobQueue, type EnqueueOptions } from "./job-queue.ts";
import { emptyQueue } from "./test/empty-queue.ts";
import { createWorker, OUTCOME_BATCH, type JobHandler } from "./worker.ts";

for (const backend of backends) {
describe(`job queue and worker on ${backend}`, () => {
const handle = useStore(backend);
let store: Store;
let clock: ManualClock;
let queue: JobQueue;
beforeEach(async () => {
  store = handle.main.store;
  ({ clock, queue } = await emptyQueue(store));
});

const worker = (handlers: Record<string, JobHandler>, extra = {}) => createWorker({ queue, clock, handlers, ...extra });
const enqueue = (kind: string, payload: unknown, options?: EnqueueOptions, tx: Sql = store) => queue.enqueue(tx, kind, payload, options);
/** Enqueues n jobs in one transaction. */
const enqueueMany = (n: number, job: (i: number) => [string, unknown, EnqueueOptions?]) =>
  store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) await enqueue(...job(i), tx);
  });

/**
 * Resolves once every notification committed before the call has reached this process's listeners:
 * they come in commit order (SQLite: at the commit, PostgreSQL: on the one listening session), so a
 * notification of our own committed now arrives after them.
 */
async function wakeUpsDelivered(on: Store): Promise<void> {
  let arrived: () => void = () => {};
  const seen = new Promise<void>((r) => (arrived = r));
  const stop = await on.listen("test_barrier", () => arrived());
  await on.transaction((tx) => tx.notify("test_barrier"));
  await seen;
  stop();
}

describe("job queue", () => {
  it("an enqueue inside a rolled-back transaction leaves no job", async () => {
    await expect(
      store.transaction(async (tx) => {
        await enqueue("x", { n: 1 }, {}, tx);
        throw new Error("state change failed");
      }),
    ).rejects.toThrow("state change failed");
    expect(await queue.count()).toBe(0);
  });

  it("runs a due job once, and not a job that is not due yet", async () => {
    const seen: unknown[] = [];
    const w = worker({ x: async (job) => (seen.push(job.payload), { done: true }) });
    await enqueue("x", { n: 1 });
    await enqueue("x", { n: 2 }, { runAt: clock.now() + 60_000 });
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    clock.advance(59_999);
    expect(await w.drain()).toBe(0);
    clock.advance(1);
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await queue.count()).toBe(0);
  });

  it("a retry runs again at its time with the attempt counted, and the write commits with it", async () => {
    await store.exec("DROP TABLE IF EXISTS log; CREATE TABLE log (attempt INTEGER)");
    const w = worker({
      x: async (job) => {
        const write = async (tx: Sql) => void (await tx.run("INSERT INTO log VALUES (?)", [job.attempts]));
        return job.attempts < 3 ? { retryAt: clock.now() + 1000, write } : { done: true, write };
      },
    });
    await enqueue("x", {});
    expect(await w.drain()).toBe(1);
    clock.advance(1000);
    expect(await w.drain()).toBe(1);
    clock.advance(1000);
    expect(await w.drain()).toBe(1);
    expect((await store.all<{ attempt: number }>("SELECT attempt FROM log ORDER BY attempt")).map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(await queue.count()).toBe(0);
  });

  it("a handler that throws is retried later, not lost", async () => {
    let calls = 0;
    const w = worker({ x: async () => (++calls === 1 ? Promise.reject(new Error("boom")) : { done: true }) });
    await enqueue("x", {});
    await w.drain();
    expect(await queue.count()).toBe(1);
    clock.advance(2000);
    await w.drain();
    expect(calls).toBe(2);
    expect(await queue.count()).toBe(0);
  });

  it("holds at most perGroup jobs of one group at once, while other groups proceed", async () => {
    let running = 0;
    let peak = 0;
    const finished: string[] = [];
    // The slow group's jobs wait until the fast group's three are done (or, if the fast ones were
    // stuck behind them, until a fallback timer), so the order says who waited for whom.
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const fallback = setTimeout(open, 2000);
    const w = worker(
      {
        x: async (job) => {
          const { group } = job.payload as { group: string };
          if (group === "slow") {
            peak = Math.max(peak, ++running);
            await gate;
            running--;
          }
          finished.push(group);
          if (finished.filter((g) => g === "fast").length === 3) open();
          return { done: true };
        },
      },
      { perGroup: 2, concurrency: 8 },
    );
    for (let i = 0; i < 6; i++) await enqueue("x", { group: "slow" }, { group: "slow" });
    for (let i = 0; i < 3; i++) await enqueue("x", { group: "fast" }, { group: "fast" });
    expect(await w.drain()).toBe(9);
    clearTimeout(fallback);
    expect(peak).toBe(2);
    expect(finished.slice(0, 3)).toEqual(["fast", "fast", "fast"]);
  });

  it("a backlog of one group runs each job once, perGroup at a time, with far fewer claims than jobs", async () => {
    let running = 0;
    let peak = 0;
    const runs = new Map<number, number>();
    let claims = 0;
    const claim = queue.claim.bind(queue);
    queue.claim = (...args) => (claims++, claim(...args));
    const w = createWorker({
      queue, clock, // the defaults: 32 at once, 4 per group
      handlers: {
        x: async (job) => {
          peak = Math.max(peak, ++running);
          await new Promise((r) => setImmediate(r));
          running--;
          const { n } = job.payload as { n: number };
          runs.set(n, (runs.get(n) ?? 0) + 1);
          return { done: true };
        },
      },
    });
    await enqueueMany(200, (n) => ["x", { n }, { group: "mx:one" }]);
    expect(await w.drain()).toBe(200);
    expect(peak).toBe(4);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual([...Array(200).keys()]);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect(await queue.count()).toBe(0);
    // Held jobs are refilled in batches: one claim (and its commit) per job was the old cost.
    expect(claims).toBeLessThan(200 / 5);
  });

  it("outcomes finishing on different turns within the window share one commit; a full batch commits without waiting", async () => {
    const batches: number[] = [];
    const record = queue.record.bind(queue);
    queue.record = (batch) => (batches.push(batch.length), record(batch));
    // Ten jobs, each finishing a few turns of the event loop after the previous one (as answers
    // from the network do): one commit per turn would be ten.
    const w = worker({
      x: async (job) => {
        for (let i = 0; i < (job.payload as { n: number }).n; i++) await new Promise((r) => setImmediate(r));
        return { done: true };
      },
    });
    await enqueueMany(10, (n) => ["x", { n: n * 3 }]);
    expect(await w.drain()).toBe(10);
    expect(await queue.count()).toBe(0);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(10);
    expect(batches.length).toBeLessThan(5);

    // More outcomes at once than OUTCOME_BATCH: every batch is at most that big, and all commit.
    batches.length = 0;
    const many = createWorker({ queue, clock, handlers: { y: async () => ({ done: true }) }, concurrency: 200 });
    await enqueueMany(150, (n) => ["y", { n }]);
    expect(await many.drain()).toBe(150);
    expect(await queue.count()).toBe(0);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(150);
    expect(Math.max(...batches)).toBeLessThanOrEqual(OUTCOME_BATCH);
  });

  it("a lone job's outcome commits on the next turns, without waiting for the window", async () => {
    let answered = false;
    let recording = false;
    const record = queue.record.bind(queue);
    queue.record = (batch) => ((recording = true), record(batch));
    const w = worker({ x: async () => ((answered = true), { done: true }) });
    await enqueue("x", {});
    w.start();
    try {
      while (!answered) await new Promise((r) => setTimeout(r, 1));
      // A few turns of the event loop, far less than the window: nothing else runs, so nothing
      // could have joined the batch, and the commit did not wait for the window's timer. (When it
      // is on disk depends on the store's round trips, not on the worker: the start is what counts.)
      for (let turn = 0; turn < 5 && !recording; turn++) await new Promise((r) => setImmediate(r));
      expect(recording).toBe(true);
    } finally {
      await w.stop();
    }
    expect(await queue.count()).toBe(0);
  });

  it("a job of another group runs at once while a busy group's backlog is held", async () => {
    let openGate: () => void = () => {};
    const gate = new Promise<void>((r) => (openGate = r));
    let lightRan: () => void = () => {};
    const light = new Promise<void>((r) => (lightRan = r));
    const w = worker({
      x: async (job) => {
        if ((job.payload as { g: string }).g === "light") lightRan();
        else await gate;
        return { done: true };
      },
    });
    await enqueueMany(300, () => ["x", { g: "busy" }, { group: "busy" }]);
    w.start();
    while (w.inFlight() < 4) await new Promise((r) => setTimeout(r, 5));
    await enqueue("x", { g: "light" }, { group: "light" });
    await light; // never resolving here would time the test out
    openGate();
    await w.stop();
  });

  it("a job enqueued while a refill claim of a busy group runs is claimed after it: no wake-up is lost", async () => {
    // Nothing but the enqueue's wake-up may claim the other group's job: the poll timer's forced
    // claims are off (under the manual clock the unleased jobs are due at once, so the timer would
    // fire at once, again and again, whatever pollMs says), and the wake-up reaches the worker
    // while the refill claim still runs (on PostgreSQL a NOTIFY arrives when it arrives: once
    // the claim was over it would be a claim of its own and mask a lost one).
    queue.nextDue = async () => undefined;
    const realOnEnqueue = queue.onEnqueue.bind(queue);
    let subscribed: () => void = () => {};
    const listening = new Promise<void>((r) => (subscribed = r));
    queue.onEnqueue = async (listener) => {
      const stop = await realOnEnqueue(listener);
      subscribed();
      return stop;
    };
    const realClaim = queue.claim.bind(queue);
    let enqueued = false;
    // Refill claims (the ones that read some groups only) take a while; the first one sees a job of
    // another group enqueued while it runs, whose wake-up arrives during the claim.
    queue.claim = (async (...args: Parameters<JobQueue["claim"]>) => {
      if (args[4] && !enqueued) {
        enqueued = true;
        await listening;
        await enqueue("x", { g: "other" }, { group: "other" });
        await wakeUpsDelivered(store);
        await new Promise((r) => setTimeout(r, 30));
      }
      return realClaim(...args);
    }) as never;
    let otherRan: () => void = () => {};
    const other = new Promise<void>((r) => (otherRan = r));
    // No timer rescues a lost wake-up within the test.
    const w = worker({ x: async (job) => (((job.payload as { g: string }).g === "other" && otherRan()), { done: true }) }, { pollMs: 600_000 });
    await enqueueMany(100, () => ["x", { g: "busy" }, { group: "busy" }]);
    w.start();
    await other; // never resolving here would time the test out
    expect(enqueued).toBe(true);
    while ((await queue.count()) > 0) await new Promise((r) => setTimeout(r, 10));
    await w.stop();
  });

  it("jobs claimed but not started when the worker stops are given back, their attempt not counted", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    const w = worker({ x: async () => (started++, await gate, { done: true }) }, { perGroup: 2, concurrency: 4 });
    await enqueueMany(10, (n) => ["x", { n }, { group: "slow" }]);
    w.start();
    while (started < 2) await new Promise((r) => setTimeout(r, 5));
    const stopped = w.stop();
    release();
    await stopped;
    expect(started).toBe(2);
    const rows = await sql<{ attempts: number; lease_until: number | null }>(handle.main, "SELECT attempts, lease_until FROM jobs ORDER BY id");
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => r.attempts === 0 && r.lease_until === null)).toBe(true);
  });

  it("cancelWhere removes the matching jobs of a kind only", async () => {
    await enqueue("x", { webhookId: "wh_a" });
    await enqueue("x", { webhookId: "wh_b" });
    await enqueue("x", { webhookId: "wh_a" });
    await enqueue("y", { webhookId: "wh_a" });
    await enqueue("x", { deliveryId: 7 });
    expect(await queue.cancelWhere(store, "x", "$.webhookId", "wh_a")).toBe(2);
    expect(await queue.cancelWhere(store, "x", "$.deliveryId", 7)).toBe(1);
    expect(await queue.count("x")).toBe(1);
    expect(await queue.count("y")).toBe(1);
  });
});

describe(`a job's write on ${backend}`, () => {
  it("may await: its statements commit with the outcome, and a write that fails leaves the job to run again", async () => {
    await store.exec("DROP TABLE IF EXISTS seen; CREATE TABLE seen (n INTEGER)");
    const w = worker({
      x: async (job) => ({
        done: true,
        write: async (tx) => {
          await tx.run("INSERT INTO seen VALUES (?)", [(job.payload as { n: number }).n]);
          await new Promise((r) => setTimeout(r, 5));
          await tx.run("INSERT INTO seen VALUES (?)", [(job.payload as { n: number }).n]);
          if ((job.payload as { n: number }).n === 2) throw new Error("write failed");
        },
      }),
    }, { leaseMs: 1000 });
    await enqueue("x", { n: 1 });
    await enqueue("x", { n: 2 });
    await w.drain();
    expect((await store.all<{ n: number }>("SELECT n FROM seen ORDER BY n")).map((r) => r.n)).toEqual([1, 1]);
    expect(await queue.count()).toBe(1);
  });
});
});
}
