// The job queue's port: what a job is, what its handler answers, and what the worker needs of a
// queue; job-queue.ts implements it, worker.ts runs it.
import type { Sql } from "../db/sql.ts";

export interface EnqueueOptions {
  /** When the job becomes due (epoch ms); default now. */
  runAt?: number;
  /**
   * Jobs of one group share a concurrency limit (the worker's `perGroup`), so one slow target
   * (a subscriber URL, a recipient MX) cannot take every slot.
   */
  group?: string;
}

export interface Job {
  id: number;
  kind: string;
  payload: unknown;
  runAt: number;
  /** Attempts started so far, this one included. */
  attempts: number;
  group: string | null;
}

/** A write that joins the transaction recording a job's outcome: `tx` is that transaction. */
export type OutcomeWrite = (tx: Sql) => Promise<void>;

/** What a handler answers. `write` commits with the job's removal or rescheduling. */
export type JobOutcome =
  /** Finished (successfully or for good); `write` records the result atomically with the job's removal. */
  | { done: true; write?: OutcomeWrite }
  /** Run again at `retryAt`; `write` records this attempt atomically with the rescheduling. */
  | { retryAt: number; error?: string; write?: OutcomeWrite };

export type JobHandler = (job: Job) => Promise<JobOutcome>;

/** What the worker needs of a queue (job-queue.ts). */
export interface WorkerQueue {
  /** `onlyGroups`: look at these groups' jobs only (a refill of held jobs); absent, at every group's. */
  claim(limit: number, leaseMs: number, groupRoom: (group: string | null, taken: number) => boolean, fullGroups: string[], onlyGroups?: string[]): Promise<Job[]>;
  /** Records outcomes in one commit; answers the ids whose outcome could not be recorded. */
  record(batch: { job: Job; outcome: JobOutcome }[]): Promise<number[]>;
  /** Gives back the leases of claimed jobs that never started (their attempt is not counted). */
  release(ids: number[]): Promise<void>;
  /** Epoch ms of the earliest job not leased, or undefined when none waits. */
  nextDue(): Promise<number | undefined>;
  onEnqueue(listener: () => void): Promise<() => void>;
  /** Where one process owns the queue (SQLite), every lease at start is stale: answers how many were released. */
  releaseAllLeases?(): Promise<number>;
}
