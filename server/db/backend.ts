// The store an instance runs on, as areas see it when a write spans areas (decision P1): one
// transaction on SQLite or PostgreSQL, with the job queue and the event outbox joining it. Areas
// whose handlers enqueue jobs or emit events outside their repository (certificates, messenger,
// DLP) take a Backend instead of a DatabaseSync, so the same handler runs on either store.
import type { DatabaseSync } from "node:sqlite";
import type { EmittedEvent, EventOutbox, EventType } from "../events/event-outbox.ts";
import type { PgEventOutbox } from "../events/pg-event-outbox.ts";
import type { EnqueueOptions, JobQueue } from "../jobs/job-queue.ts";
import type { PgJobQueue } from "../jobs/pg-job-queue.ts";
import type { WorkerQueue } from "../jobs/worker.ts";
import type { Pg } from "./postgres/pg.ts";
import { storeOnPostgres } from "./postgres/postgres-store.ts";
import type { Store, TxOptions } from "./sql.ts";
import { storeOnSqlite } from "./sqlite-store.ts";
import { txOf, type SqlTx, type Tx } from "./tx.ts";

export interface Backend {
  readonly kind: "sqlite" | "postgres";
  /** The store every repository of this instance is written against (db/sql.ts). */
  readonly store: Store;
  /**
   * Runs fn in one transaction and commits; rolls back when it throws (store.transaction: fn may
   * await; on PostgreSQL it may run again after a serialization failure, so it does database work only).
   */
  transact<T>(fn: (tx: SqlTx) => T | Promise<T>, options?: TxOptions): Promise<T>;
  /** Outside any transaction: each statement commits on its own. */
  readonly direct: SqlTx;
  /** A job, committed with tx (server/jobs/README.md). */
  enqueue(tx: Tx, kind: string, payload: unknown, options?: EnqueueOptions): number | Promise<number>;
  /** events.emit, committed with tx (server/events/README.md). */
  emit(tx: Tx, projectId: string, type: EventType, data: Record<string, unknown>): EmittedEvent | Promise<EmittedEvent>;
  /** Jobs stored, of one kind or all (console, tests). */
  countJobs(kind?: string): Promise<number>;
  /** What the worker claims from and records to. */
  readonly queue: WorkerQueue;
  /** Closes the database connection(s). */
  close(): Promise<void>;
}

function wrongTx(expected: string): never {
  throw new Error(`a transaction of another backend was passed to the ${expected} backend`);
}

export function sqliteBackend(db: DatabaseSync, jobs: JobQueue, events: EventOutbox): Backend {
  const own = (tx: Tx) => (tx.kind === "sqlite" && tx.db === db ? tx : wrongTx("SQLite"));
  const store = storeOnSqlite(db);
  return {
    kind: "sqlite",
    store,
    direct: txOf(store),
    // Inside a caller's transaction (a job outcome's write) it is a savepoint of that one.
    transact: (fn, options) => store.transaction(async () => fn(txOf(store)), options),
    enqueue: (tx, kind, payload, options) => (own(tx), jobs.enqueue(kind, payload, options)),
    emit: (tx, projectId, type, data) => (own(tx), events.emit(projectId, type, data)),
    countJobs: async (kind) => jobs.count(kind),
    queue: jobs,
    async close() {
      if (db.isOpen) db.close();
    },
  };
}

export function postgresBackend(pg: Pg, jobs: PgJobQueue, events: PgEventOutbox): Backend {
  const client = (tx: Tx) => (tx.kind === "postgres" ? tx.c : wrongTx("PostgreSQL"));
  const store = storeOnPostgres(pg);
  return {
    kind: "postgres",
    store,
    direct: txOf(store),
    transact: (fn, options) => store.transaction(async () => fn(txOf(store)), options),
    enqueue: (tx, kind, payload, options) => jobs.enqueue(client(tx), kind, payload, options),
    emit: (tx, projectId, type, data) => events.emit(client(tx), projectId, type, data),
    countJobs: (kind) => jobs.count(kind),
    queue: jobs,
    close: () => pg.close(),
  };
}
