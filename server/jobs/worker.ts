// Runs the jobs of the queue, on either backend (decision P2): claims due jobs with bounded
// concurrency overall and per group, hands each to the handler of its kind, and records the
// outcome in one transaction with the handler's own writes. Handlers are at-least-once: a job
// interrupted by kill -9 runs again (after restart on SQLite, on another instance on PostgreSQL),
// so a handler first checks whether its work was already recorded as done. The queue's calls may
// answer at once (SQLite, job-queue.ts) or later (PostgreSQL, pg-job-queue.ts): one loop awaits both.
import type { TxWrite } from "../db/tx.ts";
import type { Clock } from "./clock.ts";
import type { Job } from "./job-queue.ts";

/**
 * What a handler answers. `write` joins the transaction that records the outcome (server/db/tx.ts):
 * on SQLite it runs synchronously in it, on PostgreSQL it is awaited on its
 * client; one handler serves both backends.
 */
export type JobOutcome =
  /** Finished (successfully or for good); `write` records the result atomically with the job's removal. */
  | { done: true; write?: TxWrite }
  /** Run again at `retryAt`; `write` records this attempt atomically with the rescheduling. */
  | { retryAt: number; error?: string; write?: TxWrite };

export type JobHandler = (job: Job) => Promise<JobOutcome>;

/** What the worker needs of a queue: JobQueue (SQLite) and PgJobQueue (PostgreSQL) both are one. */
export interface WorkerQueue {
  claim(limit: number, leaseMs: number, groupRoom: (group: string | null, taken: number) => boolean, fullGroups: string[]): Job[] | Promise<Job[]>;
  /** Records outcomes in one commit; answers the ids whose outcome could not be recorded. */
  record(batch: { job: Job; outcome: JobOutcome }[]): number[] | Promise<number[]>;
  /** Epoch ms of the earliest job not leased, or undefined when none waits. */
  nextDue(): number | undefined | Promise<number | undefined>;
  onEnqueue(listener: () => void): (() => void) | Promise<() => void>;
  /** Where one process owns the queue (SQLite), every lease at start is stale. */
  releaseAllLeases?(): number;
}

export interface WorkerOptions {
  queue: WorkerQueue;
  clock: Clock;
  handlers: Record<string, JobHandler>;
  /** Jobs running at once in this process, all kinds together. */
  concurrency?: number;
  /** Jobs of one group (EnqueueOptions.group) running at once in this process. */
  perGroup?: number;
  /** A claimed job not finished within this is claimable again. Longer than any handler runs. */
  leaseMs?: number;
  /** Longest sleep between looks at the queue (the console may enqueue, a lease may run out, a holder may die). */
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
  const { queue, clock, handlers } = options;
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

  // One claim at a time; a tick asked for meanwhile runs once the claim is done.
  let claiming: Promise<Job[]> | undefined;
  let again = false;

  async function claimMore(): Promise<Job[]> {
    while (claiming) await claiming.catch(() => {});
    const room = concurrency - running.size;
    if (room <= 0) return [];
    const full = [...perGroupRunning].filter(([g, n]) => g !== null && n >= perGroup).map(([g]) => g as string);
    claiming = Promise.resolve().then(() => queue.claim(room, leaseMs, (group, taken) => group === null || (perGroupRunning.get(group) ?? 0) + taken < perGroup, full));
    try {
      const jobs = (await claiming).filter((j) => !running.has(j.id));
      jobs.forEach(launch);
      return jobs;
    } finally {
      claiming = undefined;
    }
  }

  function launch(job: Job): void {
    perGroupRunning.set(job.group, (perGroupRunning.get(job.group) ?? 0) + 1);
    const p = runOne(job).finally(() => {
      running.delete(job.id);
      perGroupRunning.set(job.group, (perGroupRunning.get(job.group) ?? 1) - 1);
      if (started) tickSoon();
    });
    running.set(job.id, p);
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

  async function flushOutcomes(): Promise<void> {
    const batch = recording.splice(0);
    try {
      const failed = await queue.record(batch);
      for (const id of failed) log("job outcome not recorded", { id });
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
      void tick();
    });
  }

  async function tick(): Promise<void> {
    if (!started) return;
    if (claiming) {
      again = true;
      return;
    }
    clearTimeout(timer);
    try {
      await claimMore();
    } catch (error) {
      log("claiming jobs failed", { error: (error as Error).message });
    }
    let wait = pollMs;
    try {
      const next = await queue.nextDue();
      if (next !== undefined) wait = Math.max(0, Math.min(pollMs, next - clock.now()));
    } catch {
      // The database is away; look again after pollMs.
    }
    if (!started) return;
    if (again) {
      again = false;
      wait = 0;
    }
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), wait);
    timer.unref();
  }

  return {
    start() {
      if (started) return;
      started = true;
      const released = queue.releaseAllLeases?.();
      if (released) log("resumed interrupted jobs", { count: released });
      void Promise.resolve(queue.onEnqueue(tickSoon)).then((stop) => (started ? (unsubscribe = stop) : stop()));
      void tick();
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      unsubscribe?.();
      await claiming?.catch(() => {});
      await Promise.allSettled([...running.values()]);
    },
    async drain() {
      let ran = 0;
      for (;;) {
        ran += (await claimMore()).length;
        if (running.size === 0) return ran;
        await Promise.race(running.values());
      }
    },
    inFlight: () => running.size,
  };
}
