// The worker of the PostgreSQL queue (decision P2): worker.ts's loop (bounded concurrency overall
// and per group, outcomes of one turn recorded in one commit, slots freed in one turn refilled by
// one claim), on a queue whose calls are asynchronous. One claim is in flight at a time per
// instance, so two ticks never fill the same free slots twice. Handlers are at-least-once, as on
// SQLite: a job whose instance died runs again on another.
import type { Clock } from "./clock.ts";
import type { Job } from "./job-queue.ts";
import type { PgJobQueue } from "./pg-job-queue.ts";
import type { JobHandler, JobOutcome, Worker } from "./worker.ts";

export interface PgWorkerOptions {
  queue: PgJobQueue;
  clock: Clock;
  /** The same handlers as on SQLite (worker.ts): their `write` gets the PostgreSQL client. */
  handlers: Record<string, JobHandler>;
  /** Jobs running at once in this instance, all kinds together. */
  concurrency?: number;
  /** Jobs of one group running at once in this instance. */
  perGroup?: number;
  /** A claimed job not finished within this is claimable again. Longer than any handler runs. */
  leaseMs?: number;
  /** Longest sleep between looks at the queue (a lease may run out, a holder may die). */
  pollMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

const backoffOnThrow = (attempts: number) => Math.min(2 ** attempts * 1000, 3_600_000);

export function createPgWorker(options: PgWorkerOptions): Worker {
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
    claiming = queue.claim(room, leaseMs, (group, taken) => group === null || (perGroupRunning.get(group) ?? 0) + taken < perGroup, full);
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

  // Outcomes finishing in the same turn of the event loop share one commit.
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
      void queue.onEnqueue(tickSoon).then((stop) => (started ? (unsubscribe = stop) : stop()));
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
