// One transaction, or a savepoint inside the caller's: repository methods are called both on
// their own (a click, a DSN) and inside a job handler's `write`, which already holds the lock.
import type { DatabaseSync } from "node:sqlite";
import { savepoint, transaction } from "../db/database.ts";

export function atomically<T>(db: DatabaseSync, fn: () => T): T {
  return db.isTransaction ? savepoint(db, "mail_sending", fn) : transaction(db, fn);
}
