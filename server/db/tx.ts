// The caller's transaction, on either backend (decision P1), for writes that must commit with
// another area's: a job's outcome `write`, DLP findings recorded with the send they belong to.
// backend.transact hands its callback an SqlTx: the Store interface (db/sql.ts) of the open
// transaction, with `kind` and `db` or `c`, the old per-store handle, kept only while areas still
// written twice are moved onto Sql (issue 37); new code takes `Sql` and uses its methods alone.
import type { DatabaseSync } from "node:sqlite";
import { PostgresStore } from "./postgres/postgres-store.ts";
import type { Queryable } from "./postgres/pg.ts";
import type { Sql } from "./sql.ts";
import { SqliteStore, storeOnSqlite } from "./sqlite-store.ts";

export type Tx = { kind: "sqlite"; db: DatabaseSync } | { kind: "postgres"; c: Queryable };

/** What backend.transact hands its callback: the Sql of the transaction, and its old handle. */
export type SqlTx = Sql & Tx;

/** A write that joins the caller's transaction. */
export type TxWrite = (tx: Tx) => void | Promise<void>;

/** The Tx of the store's transaction open in the caller's context (the store itself outside one). */
export function txOf(store: Sql): SqlTx {
  if ("kind" in store) return store as SqlTx;
  const legacy = store instanceof SqliteStore ? { kind: "sqlite", db: store.db } : store instanceof PostgresStore ? { kind: "postgres", c: store.on() } : undefined;
  if (!legacy) throw new Error("txOf: not a store of db/");
  return Object.assign(Object.create(store) as Sql, legacy) as SqlTx;
}

/**
 * Runs a write inside a synchronous SQLite transaction; a write that answers a promise would
 * finish after the commit (or interleave with another request), so it is refused.
 */
export function writeOnSqlite(write: TxWrite, db: DatabaseSync): void {
  const result = write(txOf(storeOnSqlite(db)));
  if (result instanceof Promise) {
    result.catch(() => {});
    throw new Error("a write joining a SQLite transaction must be synchronous");
  }
}

/**
 * Transitional (issue 37): a job outcome's write written over Sql, as JobOutcome's `write` (still
 * typed with the old handle) will take it once the queue records outcomes on the Store and hands
 * the Sql of that transaction; until then the queue must hand an SqlTx for this to run.
 */
export const sqlWrite = (write: (tx: SqlTx) => Promise<unknown>): TxWrite => async (tx) => {
  await write(tx as SqlTx);
};
