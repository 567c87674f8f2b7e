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
import { savepoint, transaction } from "./database.ts";
import type { Pg } from "./postgres/pg.ts";
import type { Tx } from "./tx.ts";

export interface Backend {
  readonly kind: "sqlite" | "postgres";
  /**
   * Runs fn in one transaction and commits; rolls back when it throws. On SQLite fn must not
   * answer a promise (the one connection would interleave with other requests; it is refused);
   * on PostgreSQL fn may run again after a serialization failure, so it does database work only.
   */
  transact<T>(fn: (tx: Tx) => T | Promise<T>): Promise<T>;
  /** Outside any transaction: each statement commits on its own. */
  readonly direct: Tx;
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
  return {
    kind: "sqlite",
    direct: { kind: "sqlite", db },
    async transact<T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> {
      const run = () => {
        const result = fn({ kind: "sqlite", db });
        if (result instanceof Promise) {
          result.catch(() => {});
          throw new Error("a SQLite transaction must be synchronous");
        }
        return result;
      };
      // Inside a caller's transaction (a job outcome's write) it is a savepoint of that one.
      return db.isTransaction ? savepoint(db, "backend_tx", run) : transaction(db, run);
    },
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
  return {
    kind: "postgres",
    direct: { kind: "postgres", c: pg.pool },
    transact: (fn) => pg.tx(async (c) => fn({ kind: "postgres", c })),
    enqueue: (tx, kind, payload, options) => jobs.enqueue(client(tx), kind, payload, options),
    emit: (tx, projectId, type, data) => events.emit(client(tx), projectId, type, data),
    countJobs: (kind) => jobs.count(kind),
    queue: jobs,
    close: () => pg.close(),
  };
}
