// Per-project caps (decision L3) on PostgreSQL: the count and the insert it bounds run in one
// transaction under a transaction-scoped advisory lock on the cap's scope (e.g.
// `mailboxes:<project>:mailbox`), so two instances inserting at once are ordered and the cap is
// never passed; SQLite gets the same from BEGIN IMMEDIATE (db/capped-insert.ts).
import type pg from "pg";
import { CapReachedError } from "../capped-insert.ts";
import type { Pg } from "./pg.ts";

/**
 * Runs `insert` only while `count()` is below `cap`, both in one transaction holding the scope's
 * lock. `cap` undefined means no cap (system inserts), and no lock.
 */
export function insertWithinCap<T>(db: Pg, scope: string, cap: number | undefined, count: (c: pg.PoolClient) => Promise<number>, insert: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  return db.tx(async (c) => {
    if (cap !== undefined) {
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [scope]);
      if ((await count(c)) >= cap) throw new CapReachedError(cap);
    }
    return insert(c);
  });
}
