// Runs the jobs of the queue, on either backend (decision P2): claims due jobs with bounded
// concurrency overall and per group, hands each to the handler of its kind, and records the
// outcome in one transaction with the handler's own writes. Handlers are at-least-once: a job
// interrupted by kill -9 runs again (after restart on SQLite, on another instance on PostgreSQL),
// so a handler first checks whether its work was already recorded as done.
import type { Clock } from "./clock.ts";
import type { Job, JobHandler, JobOutcome, WorkerQueue } from "./job.ts";

export type { JobHandler, JobOutcome, OutcomeWrite, WorkerQueue } from "./job.ts";


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

/**
 * How long a finished job's outcome may wait for others to share its commit while other handlers
 * run (with none running it commits on the next turn), and how many may share one.
 */
export const OUTCOME_WINDOW_MS = 10;
export const OUTCOME_BATCH = 64;

/** Jobs of one group a claim may lease, in slots of perGroup: one running set and seven waiting. */
const HOLD_FACTOR = 8;

export function createWorker(options: WorkerOptions): Worker {
  const { queue, clock, handlers } = options;
  const concurrency = options.concurrency ?? 32;
  const perGroup = options.perGroup ?? 4;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const pollMs = options.pollMs ?? 1000;
  const log = options.log ?? (() => {});
  // A claim leases a few jobs ahead of the slots (HOLD_FACTOR slots' worth per group, three
  // times the concurrency overall), held here until a slot of their group frees: a backlog for one
  // receiving origin then costs one claim per 25 or so jobs instead of one claim (and its commit)
  // per job, which was a fifth of a webhook delivery's CPU. Held jobs are leased like running
  // ones (kill -9 loses none: SQLite releases every lease at start, PostgreSQL voids the dead
  // holder's), never run more than perGroup at once, and their handler reads the state when it
  // runs, as after any claim.
  // One group's held jobs stay below the concurrency, so they can never fill `held` and keep other
  // groups' jobs from being claimed into free slots.
  const perGroupClaimed = Math.max(perGroup, Math.min(perGroup * HOLD_FACTOR, concurrency));
  const claimedCap = concurrency * 3;
  // Every job from its start until its outcome is committed (what drain and stop wait for)...
  const running = new Map<number, Promise<void>>();
  // ...and those whose handler still runs: the slots. A slot frees when the handler answers, so the
  // next job of its group starts while the outcome waits for its batch's commit.
  let active = 0;
  let launchedTotal = 0;
  const perGroupRunning = new Map<string | null, number>();
  const held: Job[] = [];
  const perGroupHeld = new Map<string | null, number>();
  // Groups whose due jobs the last claims left in the table for want of room: a slot freed in one
  // of them (or anywhere, when the claim was cut by the overall cap) asks the table again;
  // otherwise a freed slot is refilled from `held`, and new jobs wake the worker by onEnqueue.
  const leftBehind = new Set<string | null>();
  let saturated = false;
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  // One claim at a time; a forced tick asked for meanwhile runs once the claim is done.
  let claiming: Promise<Job[]> | undefined;
  // The stale leases given back at start, before the first claim looks at the table.
  let ready: Promise<void> = Promise.resolve();
  let again = false;

  const count = (m: Map<string | null, number>, g: string | null) => m.get(g) ?? 0;
  const bump = (m: Map<string | null, number>, g: string | null, by: number) => m.set(g, count(m, g) + by);

  /** Starts held jobs, oldest first, while their group and the worker have room; answers how many. */
  function launchHeld(): number {
    let launched = 0;
    for (let i = 0; i < held.length && active < concurrency; ) {
      const job = held[i];
      if (job.group !== null && count(perGroupRunning, job.group) >= perGroup) {
        i++;
        continue;
      }
      held.splice(i, 1);
      bump(perGroupHeld, job.group, -1);
      launch(job);
      launched++;
    }
    return launched;
  }

  /** Whether a slot freed in `group` needs a look at the table (else `held` or onEnqueue has it). */
  const wantsClaim = (group: string | null) => saturated || (leftBehind.has(group) && count(perGroupHeld, group) < perGroup);

  /** Claims from the table (when `force`d or a freed slot wants it) and starts what has room; answers how many started. */
  async function claimMore(force: boolean): Promise<number> {
    while (claiming) await claiming.catch(() => {});
    // Stopped while waiting for that claim: claim nothing more (stop gives back what is held).
    if (stopped) return 0;
    let launched = launchHeld();
    let room = claimedCap - active - held.length;
    if (room <= 0) return launched;
    const inHand = (g: string | null) => count(perGroupRunning, g) + count(perGroupHeld, g);
    // Without a reason to look at every group, only the busy groups whose held jobs run low are
    // refilled, and the query reads their jobs only: no pass over rows that could not be taken.
    // Cut short by the overall cap last time: claim again once half the slots' worth is free, or
    // when slots are free and nothing held may take them.
    if (!force && saturated && room < concurrency / 2 && !(active < concurrency && launched === 0)) return launched;
    const refill = force || saturated ? undefined : ([...leftBehind].filter((g) => g !== null && count(perGroupHeld, g) < perGroup) as string[]);
    if (refill?.length === 0) return launched;
    if (refill) room = Math.min(room, refill.reduce((sum, g) => sum + perGroupClaimed - inHand(g), 0));
    const full = [...new Set([...perGroupRunning.keys(), ...perGroupHeld.keys()])].filter((g) => g !== null && inHand(g) >= perGroupClaimed) as string[];
    const skipped = new Set<string | null>(full);
    const groupRoom = (group: string | null, taken: number) => {
      const ok = group === null || inHand(group) + taken < perGroupClaimed;
      if (!ok) skipped.add(group);
      return ok;
    };
    const limit = room;
    claiming = Promise.resolve().then(() => queue.claim(limit, leaseMs, groupRoom, full, refill));
    try {
      const jobs = (await claiming).filter((j) => !running.has(j.id) && !held.some((h) => h.id === j.id));
      for (const job of jobs) {
        held.push(job);
        bump(perGroupHeld, job.group, 1);
      }
      if (refill) {
        // A refilled group that got fewer than it had room for has no more due jobs.
        for (const g of refill) if (inHand(g) < perGroupClaimed && !skipped.has(g)) leftBehind.delete(g);
      } else {
        saturated = jobs.length >= limit;
        leftBehind.clear();
        for (const g of skipped) leftBehind.add(g);
      }
      launched += launchHeld();
      return launched;
    } finally {
      claiming = undefined;
      // A forced tick (an enqueue, the timer) that came during this claim stepped back for it:
      // run it now, or its wake-up is lost (a refill claim reads one group's jobs only).
      if (again) {
        again = false;
        if (started) tickSoon(true);
      }
    }
  }

  function launch(job: Job): void {
    bump(perGroupRunning, job.group, 1);
    active++;
    launchedTotal++;
    const p = runOne(job).finally(() => running.delete(job.id));
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
    const recorded = record(job, outcome);
    // The handler's part is over: its slot goes to the next held job now, not after the commit.
    active--;
    bump(perGroupRunning, job.group, -1);
    launchHeld();
    if (started && wantsClaim(job.group)) tickSoon(false);
    // No other handler runs: no outcome could join this one's batch soon, so it need not wait.
    if (active === 0) flushSoon();
    await recorded;
  }

  // Outcomes are committed together, each in a savepoint of its own (one failing write does not
  // take the others with it): those that finish within OUTCOME_WINDOW_MS of the first, or the
  // first OUTCOME_BATCH of them; once no handler runs, the batch commits on the next turn. Jobs
  // that wait on the network (webhooks, the relay) finish one per turn of the event loop, so a
  // commit per turn was still a commit per one to three jobs, and that commit was a fifth of a
  // delivery's CPU. A commit costs about the pages it writes, which one batch shares: a relayed
  // message (about 2 ms of work) wrote 11 WAL frames with one turn's outcomes per commit, 8 with a
  // 2 ms window and 5 with 10 ms (decision SP2). Nothing waits on the window but the outcome's
  // durability: the job's slot is already free, and an outcome lost with the process (kill -9
  // inside the window) only makes the at-least-once job run again, as a crash before any commit does.
  const recording: { job: Job; outcome: JobOutcome; done: () => void }[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  function record(job: Job, outcome: JobOutcome): Promise<void> {
    return new Promise((done) => {
      const waiting = recording.push({ job, outcome, done });
      if (waiting >= OUTCOME_BATCH) {
        clearTimeout(flushTimer);
        void flushOutcomes();
      } else if (waiting === 1) flushTimer = setTimeout(flushOutcomes, OUTCOME_WINDOW_MS);
    });
  }

  /** Commits the waiting outcomes on the next turn instead of at the end of the window. */
  function flushSoon(): void {
    if (flushTimer === undefined) return;
    clearTimeout(flushTimer);
    flushTimer = undefined;
    setImmediate(flushOutcomes);
  }

  async function flushOutcomes(): Promise<void> {
    flushTimer = undefined;
    const batch = recording.splice(0);
    if (batch.length === 0) return;
    try {
      const failed = await queue.record(batch);
      for (const id of failed) log("job outcome not recorded", { id });
    } catch (error) {
      log("job outcomes not recorded", { count: batch.length, error: (error as Error).message });
    }
    for (const { done } of batch) done();
  }

  // Jobs finishing in one turn free their slots together: one claim for all of them. A tick that
  // is not forced (a freed slot whose group has held jobs, or whose due jobs were all claimed)
  // only starts held jobs and leaves the timer as it was.
  let tickQueued = false;
  let tickForced = false;
  function tickSoon(force = true): void {
    tickForced ||= force;
    if (tickQueued) return;
    tickQueued = true;
    setImmediate(() => {
      tickQueued = false;
      const forced = tickForced;
      tickForced = false;
      void tick(forced);
    });
  }

  async function tick(force = true): Promise<void> {
    await ready;
    if (!started) return;
    if (!force) {
      // Waits for a claim under way, then starts what the freed slots allow.
      try {
        await claimMore(false);
      } catch (error) {
        log("claiming jobs failed", { error: (error as Error).message });
      }
      return;
    }
    if (claiming) {
      again = true;
      return;
    }
    clearTimeout(timer);
    try {
      await claimMore(true);
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
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), wait);
    timer.unref();
  }

  return {
    start() {
      if (started) return;
      started = true;
      stopped = false;
      ready = (async () => {
        try {
          const released = await queue.releaseAllLeases?.();
          if (released) log("resumed interrupted jobs", { count: released });
        } catch (error) {
          log("releasing stale leases failed", { error: (error as Error).message });
        }
      })();
      void queue.onEnqueue(tickSoon).then((stop) => (started ? (unsubscribe = stop) : stop()), (error: Error) => log("listening for new jobs failed", { error: error.message }));
      void tick();
    },
    async stop() {
      started = false;
      stopped = true;
      clearTimeout(timer);
      unsubscribe?.();
      // Held jobs never started: their leases go back now, so they need not wait for them to run
      // out. Taken at once, before any await lets a finishing job start one of them, and again
      // after the claim under way, which may add some.
      const unstarted = held.splice(0);
      await claiming?.catch(() => {});
      unstarted.push(...held.splice(0));
      perGroupHeld.clear();
      if (unstarted.length) {
        try {
          await queue.release(unstarted.map((j) => j.id));
        } catch (error) {
          log("releasing held jobs failed", { count: unstarted.length, error: (error as Error).message });
        }
      }
      await Promise.allSettled([...running.values()]);
    },
    async drain() {
      const before = launchedTotal;
      await ready;
      await claimMore(true);
      for (;;) {
        if (running.size === 0) {
          // Nothing runs: look at the table once more (a job's write may have enqueued another).
          if ((await claimMore(true)) === 0) return launchedTotal - before;
        }
        await Promise.race(running.values());
        await claimMore(false);
      }
    },
    inFlight: () => running.size,
  };
}
