// Runs the jobs of the queue: claims due jobs with bounded concurrency overall and per group,
// hands each to the handler of its kind, and records the outcome in one transaction with the
// handler's own writes. Handlers are at-least-once: a job interrupted by kill -9 runs again after
// restart, so a handler first checks whether its work was already recorded as done.
import type { DatabaseSync } from "node:sqlite";
import { writeOnSqlite, type TxWrite } from "../db/tx.ts";
import type { Clock } from "./clock.ts";
import type { Job, JobQueue } from "./job-queue.ts";

/**
 * What a handler answers. `write` joins the transaction that records the outcome (server/db/tx.ts):
 * on SQLite it runs synchronously in it, on PostgreSQL (pg-worker.ts) it is awaited on its
 * client; one handler serves both backends.
 */
export type JobOutcome =
  /** Finished (successfully or for good); `write` records the result atomically with the job's removal. */
  | { done: true; write?: TxWrite }
  /** Run again at `retryAt`; `write` records this attempt atomically with the rescheduling. */
  | { retryAt: number; error?: string; write?: TxWrite };

export type JobHandler = (job: Job) => Promise<JobOutcome>;

export interface WorkerOptions {
  db: DatabaseSync;
  queue: JobQueue;
  clock: Clock;
  handlers: Record<string, JobHandler>;
  /** Jobs running at once, all kinds together. */
  concurrency?: number;
  /** Jobs running at once within one group (EnqueueOptions.group). */
  perGroup?: number;
  /** A claimed job not finished within this is claimable again. Longer than any handler runs. */
  leaseMs?: number;
  /** Longest sleep between looks at the queue (another process, e.g. the console, may enqueue). */
  pollMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface Worker {
  start(): void;
  /** Stops claiming and waits for the jobs in flight. */
  stop(): Promise<void>;
  /**
   * Runs every job due at the clock's current time, and any that they make due, until none is
   * left; resolves with how many ran. Tests call it after moving a manual clock.
   */
  drain(): Promise<number>;
  /** Jobs running now. */
  inFlight(): number;
}

// A handler that throws has a bug or met a fault it did not expect; retry it, slower each time.
const backoffOnThrow = (attempts: number) => Math.min(2 ** attempts * 1000, 3_600_000);

export function createWorker(options: WorkerOptions): Worker {
  const { db, queue, clock, handlers } = options;
  const concurrency = options.concurrency ?? 32;
  const perGroup = options.perGroup ?? 4;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const pollMs = options.pollMs ?? 1000;
  const log = options.log ?? (() => {});
  const running = new Map<number, Promise<void>>();
  const perGroupRunning = new Map<string | null, number>();
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  function claimMore(): Job[] {
    const room = concurrency - running.size;
    if (room <= 0) return [];
    const full = [...perGroupRunning].filter(([g, n]) => g !== null && n >= perGroup).map(([g]) => g as string);
    const jobs = queue.claim(room, leaseMs, (group, taken) => group === null || (perGroupRunning.get(group) ?? 0) + taken < perGroup, full);
    return jobs.filter((j) => !running.has(j.id));
  }

  function launch(job: Job): Promise<void> {
    perGroupRunning.set(job.group, (perGroupRunning.get(job.group) ?? 0) + 1);
    const p = runOne(job).finally(() => {
      running.delete(job.id);
      perGroupRunning.set(job.group, (perGroupRunning.get(job.group) ?? 1) - 1);
      if (started) tickSoon();
    });
    running.set(job.id, p);
    return p;
  }

  async function runOne(job: Job): Promise<void> {
    const handler = handlers[job.kind];
    let outcome: JobOutcome;
    if (!handler) {
      outcome = { retryAt: clock.now() + 60_000, error: `no handler for job kind ${job.kind}` };
    } else {
      try {
        outcome = await handler(job);
      } catch (error) {
        log("job failed", { kind: job.kind, id: job.id, attempts: job.attempts, error: (error as Error).message });
        outcome = { retryAt: clock.now() + backoffOnThrow(job.attempts), error: (error as Error).message };
      }
    }
    await record(job, outcome);
  }

  // Outcomes that finish in the same turn of the event loop are committed together, each in a
  // savepoint of its own (one failing write does not take the others with it): one commit per
  // turn instead of one per job was most of the queue's cost per job.
  const recording: { job: Job; outcome: JobOutcome; done: () => void }[] = [];
  function record(job: Job, outcome: JobOutcome): Promise<void> {
    return new Promise((done) => {
      if (recording.push({ job, outcome, done }) === 1) setImmediate(flushOutcomes);
    });
  }

  function flushOutcomes(): void {
    const batch = recording.splice(0);
    try {
      // Committed as queue bookkeeping (job-queue.ts): a power loss can only make a job run again.
      queue.bookkeeping(() => {
        for (const { job, outcome } of batch) {
          db.exec("SAVEPOINT job_outcome");
          try {
            if (outcome.write) writeOnSqlite(outcome.write, db);
            if ("done" in outcome) queue.complete(job.id);
            else queue.reschedule(job.id, outcome.retryAt, outcome.error);
            db.exec("RELEASE job_outcome");
          } catch (error) {
            db.exec("ROLLBACK TO job_outcome");
            db.exec("RELEASE job_outcome");
            // The lease runs out and the job is claimed again; its handler sees what was recorded.
            log("job outcome not recorded", { kind: job.kind, id: job.id, error: (error as Error).message });
          }
        }
      });
    } catch (error) {
      log("job outcomes not recorded", { count: batch.length, error: (error as Error).message });
    }
    for (const { done } of batch) done();
  }

  // Jobs finishing in one turn free their slots together: one claim for all of them.
  let tickQueued = false;
  function tickSoon(): void {
    if (tickQueued) return;
    tickQueued = true;
    setImmediate(() => {
      tickQueued = false;
      tick();
    });
  }

  function tick(): void {
    if (!started) return;
    clearTimeout(timer);
    let jobs: Job[] = [];
    try {
      jobs = claimMore();
    } catch (error) {
      log("claiming jobs failed", { error: (error as Error).message });
    }
    jobs.forEach(launch);
    const next = queue.nextDue();
    const wait = next === undefined ? pollMs : Math.max(0, Math.min(pollMs, next - clock.now()));
    timer = setTimeout(tick, wait);
    timer.unref();
  }

  return {
    start() {
      if (started) return;
      started = true;
      const released = queue.releaseAllLeases();
      if (released) log("resumed interrupted jobs", { count: released });
      unsubscribe = queue.onEnqueue(tick);
      tick();
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      unsubscribe?.();
      await Promise.allSettled([...running.values()]);
    },
    async drain() {
      let ran = 0;
      for (;;) {
        const jobs = claimMore();
        jobs.forEach(launch);
        ran += jobs.length;
        if (running.size === 0) return ran;
        await Promise.race(running.values());

      }
    },
    inFlight: () => running.size,
  };
}
