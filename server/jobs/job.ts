// A job as a handler sees it, what the handler answers, and the handler itself: the types the
// queue (job-queue.ts) and the worker (worker.ts) share, in a file of their own so neither of the
// two imports the other.
import type { TxWrite } from "../db/tx.ts";

export interface Job {
  id: number;
  kind: string;
  payload: unknown;
  runAt: number;
  /** Attempts started so far, this one included. */
  attempts: number;
  group: string | null;
}

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
