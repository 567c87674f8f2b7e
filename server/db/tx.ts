// The caller's transaction, on either backend (decision P1), for writes that must commit with
// another area's: a job's outcome `write`, DLP findings recorded with the send they belong to.
// On SQLite the write runs synchronously inside the caller's transaction(db, ...) and must not
// await (another request would interleave on the one connection); on PostgreSQL it runs on the
// caller's transaction client and is awaited. A method taking a Tx returns `void | Promise<void>`
// and does the one or the other by `tx.kind`.
import type { DatabaseSync } from "node:sqlite";
import type { Queryable } from "./postgres/pg.ts";

export type Tx = { kind: "sqlite"; db: DatabaseSync } | { kind: "postgres"; c: Queryable };

/** A write that joins the caller's transaction. */
export type TxWrite = (tx: Tx) => void | Promise<void>;

/**
 * Runs a write inside a synchronous SQLite transaction; a write that answers a promise would
 * finish after the commit (or interleave with another request), so it is refused.
 */
export function writeOnSqlite(write: TxWrite, db: DatabaseSync): void {
  const result = write({ kind: "sqlite", db });
  if (result instanceof Promise) {
    result.catch(() => {});
    throw new Error("a write joining a SQLite transaction must be synchronous");
  }
}
