// The store an instance runs on, as areas see it when a write spans areas (decision P1): one
// transaction, with the job queue and the event outbox joining it, written once for SQLite and
// PostgreSQL (db/sql.ts). Areas whose handlers enqueue jobs or emit events outside their
// repository (certificates, messenger, DLP) take a Backend, so the same handler runs on either store.
import { EventOutbox, type EmittedEvent, type EventType } from "../events/event-outbox.ts";
import type { Clock } from "../jobs/clock.ts";
import { JobQueue, type EnqueueOptions } from "../jobs/job-queue.ts";
import type { Sql, Store, TxOptions } from "./sql.ts";
import type { DatabaseSync } from "node:sqlite";
import type { Pg } from "./postgres/pg.ts";
import { sqlOnClient, storeOnPostgres } from "./postgres/postgres-store.ts";
import { SyncJobQueue } from "./legacy-sqlite-outbox.ts";
import { SqliteStore, storeOnSqlite } from "./sqlite-store.ts";
import { txOf, type SqlTx, type Tx } from "./tx.ts";

/**
 * Transitional (issue 37): what enqueue and emit accept while areas still pass the old handle; at
 * run time every handle is an SqlTx (backend.transact, the worker), whose Sql is used.
 */
export type TxLike = Sql | Tx;

export interface Backend {
  /** The store every repository of this instance is written against (db/sql.ts). */
  readonly store: Store;
  /**
   * Runs fn in one transaction and commits; rolls back when it throws (store.transaction: fn may
   * await; on PostgreSQL it may run again after a serialization failure, so it does database work
   * only). Inside a caller's transaction (a job outcome's write) it is a savepoint of that one.
   * Transitional: `tx` is also the old per-store handle (db/tx.ts SqlTx) while areas still written
   * twice take one; it becomes a plain Sql once they are converted (issue 37).
   */
  transact<T>(fn: (tx: SqlTx) => T | Promise<T>, options?: TxOptions): Promise<T>;
  /** Outside any transaction: each statement commits on its own. Transitional (the store itself is that Sql). */
  readonly direct: SqlTx;
  /**
   * A job, committed with tx (server/jobs/README.md). Transitional: inside a synchronous legacy
   * SQLite transaction (`transaction(db, ...)`, writeOnSqlite) it enqueues at once and answers the
   * id itself; everywhere else a promise. Becomes Promise<number> alone with the last such caller.
   */
  enqueue(tx: TxLike, kind: string, payload: unknown, options?: EnqueueOptions): number | Promise<number>;
  /** events.emit, committed with tx (server/events/README.md). */
  emit(tx: TxLike, projectId: string, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent>;
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
  // Transitional: an old handle without Sql methods is a raw PostgreSQL client (its own pg.tx) or
  // a SQLite connection, whose open transaction the store joins by itself.
  const sql = (tx: TxLike): Sql => ("all" in tx ? tx : tx.kind === "postgres" ? sqlOnClient(tx.c) : store);
  // Transitional: a synchronous legacy SQLite transaction is open (not one of the store's).
  const legacy = store instanceof SqliteStore ? new SyncJobQueue(store.db, clock) : undefined;
  const inLegacyTransaction = () => store instanceof SqliteStore && store.db.isTransaction && !store.inTransaction();
  return {
    store,
    direct: txOf(store),
    transact: (fn, options) => store.transaction(async (tx) => fn(txOf(tx)), options),
    enqueue: (tx, kind, payload, options) => (legacy && inLegacyTransaction() ? legacy.enqueue(kind, payload, options) : queue.enqueue(sql(tx), kind, payload, options)),
    emit: (tx, projectId, type, data) => events.emit(sql(tx), projectId, type, data),
    countJobs: (kind) => queue.count(kind),
    queue,
    events,
    close: () => store.close(),
  };
}

/**
 * Transitional (issue 37): the old constructors, for the tests of areas not yet converted; the
 * queue and outbox they were handed are the legacy ones (db/legacy-*-outbox.ts), whose clock is used.
 */
export function sqliteBackend(db: DatabaseSync, jobs: { clock: Clock }, _events?: unknown): Backend {
  return backendOn(storeOnSqlite(db), jobs.clock);
}

/** Transitional (issue 37): see sqliteBackend. */
export function postgresBackend(pg: Pg, jobs: { clock: Clock }, _events?: unknown): Backend {
  return backendOn(storeOnPostgres(pg), jobs.clock);
}
