// Per-project caps (docs/decisions.md L3) are checked in the same write transaction as the
// insert they bound: counting in one request and inserting in a later turn of the event loop let
// 30 parallel creates from 990 mailboxes end at 1,020. The transaction locks the cap's scope
// first (tx.lock: PostgreSQL's advisory lock orders two instances inserting at once; SQLite's
// write transaction already holds the one write lock, so the console cannot slip a row in either).
import type { Sql } from "./sql.ts";

/** Thrown by a repository when the insert would pass its cap; handlers answer 409 limit_reached. */
export class CapReachedError extends Error {
  readonly cap: number;
  constructor(cap: number) {
    super(`cap of ${cap} reached`);
    this.cap = cap;
  }
}

/**
 * Runs `insert` only while `count` is below `cap`, both in one transaction (a savepoint of the
 * caller's, when `sql` is one) holding the lock of `scope` (e.g. `webhooks:<project>`). `cap`
 * undefined means no cap (system inserts such as the records a mail domain publishes), and no lock.
 */
export function insertWithinCap<T>(sql: Sql, scope: string, cap: number | undefined, count: (tx: Sql) => Promise<number>, insert: (tx: Sql) => Promise<T>): Promise<T> {
  return sql.transaction(async (tx) => {
    if (cap !== undefined) {
      await tx.lock(scope);
      if ((await count(tx)) >= cap) throw new CapReachedError(cap);
    }
    return insert(tx);
  });
}

