// Per-project caps (docs/decisions.md L3) are checked in the same write transaction as the
// insert they bound: counting in one request and inserting in a later turn of the event loop let
// 30 parallel creates from 990 mailboxes end at 1,020. BEGIN IMMEDIATE takes the write lock
// before the count, so another connection (the console) cannot slip a row in between either.
import type { DatabaseSync } from "node:sqlite";

/** Thrown by a repository when the insert would pass its cap; handlers answer 409 limit_reached. */
export class CapReachedError extends Error {
  readonly cap: number;
  constructor(cap: number) {
    super(`cap of ${cap} reached`);
    this.cap = cap;
  }
}

/**
 * Runs `insert` only while `count()` is below `cap`, both inside one write transaction (or the
 * caller's, when one is open). `cap` undefined means no cap (system inserts such as the records
 * a mail domain publishes).
 */
export function insertWithinCap<T>(db: DatabaseSync, cap: number | undefined, count: () => number, insert: () => T): T {
  const work = () => {
    if (cap !== undefined && count() >= cap) throw new CapReachedError(cap);
    return insert();
  };
  if (db.isTransaction) return work();
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
