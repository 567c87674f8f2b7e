// One transaction, or a savepoint inside the caller's: repository methods are called both on
// their own (a click, a DSN) and inside a job handler's `write`, which already holds the lock.
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";

export function atomically<T>(db: DatabaseSync, fn: () => T): T {
  if (!db.isTransaction) return transaction(db, fn);
  db.exec("SAVEPOINT mail_sending");
  try {
    const result = fn();
    db.exec("RELEASE mail_sending");
    return result;
  } catch (error) {
    db.exec("ROLLBACK TO mail_sending");
    db.exec("RELEASE mail_sending");
    throw error;
  }
}
