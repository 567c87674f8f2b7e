// The store an instance runs on, as areas see it when a write spans areas (decision P1): one
// transaction, with the job queue and the event outbox joining it, written once for SQLite and
// PostgreSQL (db/sql.ts). Areas whose handlers enqueue jobs or emit events outside their
// repository (certificates, messenger, DLP) take a Backend, so the same handler runs on either store.
import { EventOutbox, type EmittedEvent, type EventType } from "../events/event-outbox.ts";
import type { Clock } from "../jobs/clock.ts";
import { JobQueue, type EnqueueOptions } from "../jobs/job-queue.ts";
import type { Sql, Store, TxOptions } from "./sql.ts";

export interface Backend {
  /** The store every repository of this instance is written against (db/sql.ts). */
  readonly store: Store;
  /**
   * Runs fn in one transaction and commits; rolls back when it throws (store.transaction: fn may
   * await; on PostgreSQL it may run again after a serialization failure, so it does database work
   * only). Inside a caller's transaction (a job outcome's write) it is a savepoint of that one.
   */
  transact<T>(fn: (tx: Sql) => Promise<T>, options?: TxOptions): Promise<T>;
  /** Outside any transaction: each statement commits on its own (the store itself). */
  readonly direct: Sql;
  /** A job, committed with tx (server/jobs/README.md). */
  enqueue(tx: Sql, kind: string, payload: unknown, options?: EnqueueOptions): Promise<number>;
  /** events.emit, committed with tx (server/events/README.md). */
  emit(tx: Sql, projectId: string, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent>;
  /** Jobs stored, of one kind or all (console, tests). */
  countJobs(kind?: string): Promise<number>;
  /** The job queue: what the worker claims from and records to. */
  readonly queue: JobQueue;
  /** The event outbox (repositories that emit take it). */
  readonly events: EventOutbox;
  /** Closes the database connection(s). */
  close(): Promise<void>;
}

/** The backend of a store: its job queue and event outbox on it. */
export function backendOn(store: Store, clock: Clock): Backend {
  const queue = new JobQueue(store, clock);
  const events = new EventOutbox(queue, clock);
  return {
    store,
    direct: store,
    transact: (fn, options) => store.transaction(fn, options),
    enqueue: (tx, kind, payload, options) => queue.enqueue(tx, kind, payload, options),
    emit: (tx, projectId, type, data) => events.emit(tx, projectId, type, data),
    countJobs: (kind) => queue.count(kind),
    queue,
    events,
    close: () => store.close(),
  };
}
