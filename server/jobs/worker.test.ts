// The job queue and its worker on a real SQLite file: atomic enqueue, retries on a manual clock,
// per-group concurrency, and resumption of jobs whose worker died.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, transaction } from "../db/database.ts";
import { manualClock, type ManualClock } from "./clock.ts";
import { JobQueue } from "./job-queue.ts";
import { createWorker, OUTCOME_BATCH, type JobHandler } from "./worker.ts";

let dir: string;
let db: DatabaseSync;
let clock: ManualClock;
let queue: JobQueue;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "jobs-"));
  db = openDatabase(dir);
  clock = manualClock();
  queue = new JobQueue(db, clock);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const worker = (handlers: Record<string, JobHandler>, extra = {}) => createWorker({ queue, clock, handlers, ...extra });

describe("job queue", () => {
  it("an enqueue inside a rolled-back transaction leaves no job", () => {
    expect(() =>
      transaction(db, () => {
        queue.enqueue("x", { n: 1 });
        throw new Error("state change failed");
      }),
    ).toThrow("state change failed");
    expect(queue.count()).toBe(0);
  });

  it("runs a due job once, and not a job that is not due yet", async () => {
    const seen: unknown[] = [];
    const w = worker({ x: async (job) => (seen.push(job.payload), { done: true }) });
    queue.enqueue("x", { n: 1 });
    queue.enqueue("x", { n: 2 }, { runAt: clock.now() + 60_000 });
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    clock.advance(59_999);
    expect(await w.drain()).toBe(0);
    clock.advance(1);
    expect(await w.drain()).toBe(1);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    expect(queue.count()).toBe(0);
  });

  it("a retry runs again at its time with the attempt counted, and the write commits with it", async () => {
    db.exec("CREATE TABLE log (attempt INTEGER)");
    const w = worker({
      x: async (job) => {
        const write = () => void db.prepare("INSERT INTO log VALUES (?)").run(job.attempts);
        return job.attempts < 3 ? { retryAt: clock.now() + 1000, write } : { done: true, write };
      },
    });
    queue.enqueue("x", {});
    expect(await w.drain()).toBe(1);
    clock.advance(1000);
    expect(await w.drain()).toBe(1);
    clock.advance(1000);
    expect(await w.drain()).toBe(1);
    expect(db.prepare("SELECT attempt FROM log").all().map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(queue.count()).toBe(0);
  });

  it("a handler that throws is retried later, not lost", async () => {
    let calls = 0;
    const w = worker({ x: async () => (++calls === 1 ? Promise.reject(new Error("boom")) : { done: true }) });
    queue.enqueue("x", {});
    await w.drain();
    expect(queue.count()).toBe(1);
    clock.advance(2000);
    await w.drain();
    expect(calls).toBe(2);
    expect(queue.count()).toBe(0);
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
    for (let i = 0; i < 6; i++) queue.enqueue("x", { group: "slow" }, { group: "slow" });
    for (let i = 0; i < 3; i++) queue.enqueue("x", { group: "fast" }, { group: "fast" });
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
    transaction(db, () => { for (let n = 0; n < 200; n++) queue.enqueue("x", { n }, { group: "mx:one" }); });
    expect(await w.drain()).toBe(200);
    expect(peak).toBe(4);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual([...Array(200).keys()]);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect(queue.count()).toBe(0);
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
    transaction(db, () => { for (let n = 0; n < 10; n++) queue.enqueue("x", { n: n * 3 }); });
    expect(await w.drain()).toBe(10);
    expect(queue.count()).toBe(0);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(10);
    expect(batches.length).toBeLessThan(5);

    // More outcomes at once than OUTCOME_BATCH: every batch is at most that big, and all commit.
    batches.length = 0;
    const many = createWorker({ queue, clock, handlers: { y: async () => ({ done: true }) }, concurrency: 200 });
    transaction(db, () => { for (let n = 0; n < 150; n++) queue.enqueue("y", { n }); });
    expect(await many.drain()).toBe(150);
    expect(queue.count()).toBe(0);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(150);
    expect(Math.max(...batches)).toBeLessThanOrEqual(OUTCOME_BATCH);
  });

  it("a lone job's outcome commits on the next turns, without waiting for the window", async () => {
    let answered = false;
    const w = worker({ x: async () => ((answered = true), { done: true }) });
    queue.enqueue("x", {});
    w.start();
    while (!answered) await new Promise((r) => setTimeout(r, 1));
    // A few turns of the event loop, far less than the window: nothing else runs, so nothing could
    // have joined the batch, and the commit did not wait for the window's timer.
    for (let turn = 0; turn < 5 && queue.count() > 0; turn++) await new Promise((r) => setImmediate(r));
    expect(queue.count()).toBe(0);
    await w.stop();
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
    transaction(db, () => { for (let n = 0; n < 300; n++) queue.enqueue("x", { g: "busy" }, { group: "busy" }); });
    w.start();
    while (w.inFlight() < 4) await new Promise((r) => setTimeout(r, 5));
    queue.enqueue("x", { g: "light" }, { group: "light" });
    await light; // never resolving here would time the test out
    openGate();
    await w.stop();
  });

  it("a job enqueued while a refill claim of a busy group runs is claimed after it: no wake-up is lost", async () => {
    const realClaim = queue.claim.bind(queue);
    let enqueued = false;
    // Refill claims (the ones that read some groups only) take a while; the first one sees a job of
    // another group enqueued while it runs, whose wake-up arrives during the claim.
    queue.claim = (async (...args: Parameters<JobQueue["claim"]>) => {
      if (args[4] && !enqueued) {
        enqueued = true;
        queue.enqueue("x", { g: "other" }, { group: "other" });
        await new Promise((r) => setTimeout(r, 30));
      }
      return realClaim(...args);
    }) as never;
    let otherRan: () => void = () => {};
    const other = new Promise<void>((r) => (otherRan = r));
    // No timer rescues a lost wake-up within the test.
    const w = worker({ x: async (job) => (((job.payload as { g: string }).g === "other" && otherRan()), { done: true }) }, { pollMs: 600_000 });
    transaction(db, () => { for (let n = 0; n < 100; n++) queue.enqueue("x", { g: "busy" }, { group: "busy" }); });
    w.start();
    await other; // never resolving here would time the test out
    expect(enqueued).toBe(true);
    while (queue.count() > 0) await new Promise((r) => setTimeout(r, 10));
    await w.stop();
  });

  it("jobs claimed but not started when the worker stops are given back, their attempt not counted", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    const w = worker({ x: async () => (started++, await gate, { done: true }) }, { perGroup: 2, concurrency: 4 });
    transaction(db, () => { for (let n = 0; n < 10; n++) queue.enqueue("x", { n }, { group: "slow" }); });
    w.start();
    while (started < 2) await new Promise((r) => setTimeout(r, 5));
    const stopped = w.stop();
    release();
    await stopped;
    expect(started).toBe(2);
    const rows = db.prepare("SELECT attempts, lease_until FROM jobs ORDER BY id").all() as { attempts: number; lease_until: number | null }[];
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => r.attempts === 0 && r.lease_until === null)).toBe(true);
  });

  it("a job leased by a worker that died runs again when the next worker starts", async () => {
    queue.enqueue("x", { n: 1 });
    expect(queue.claim(10, 600_000, () => true)).toHaveLength(1);
    // The claimer is gone (kill -9): nothing else may take the job while its lease holds...
    expect(queue.claim(10, 600_000, () => true)).toHaveLength(0);
    const seen: number[] = [];
    const w = worker({ x: async (job) => (seen.push(job.attempts), { done: true }) });
    // ...but a new server process releases every lease at start.
    w.start();
    await new Promise((r) => setTimeout(r, 50));
    await w.stop();
    expect(seen).toEqual([2]);
    expect(queue.count()).toBe(0);
  });
});

describe("a job's write on SQLite", () => {
  it("must be synchronous: one that answers a promise is refused, and the job runs again", async () => {
    const w = worker({ x: async () => ({ done: true, write: async () => {} }) }, { leaseMs: 1000 });
    queue.enqueue("x", {});
    await w.drain();
    expect(queue.count()).toBe(1);
  });
});
