// One transaction, or a savepoint inside the caller's: repository methods are called both on
// their own (a click, a DSN) and inside a job handler's `write`, which already holds the lock.
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";

export function atomically<T>(db: DatabaseSync, fn: () => T): T {
  if (!db.isTransaction) return transaction(db, fn);
  // Prepared once (statements.ts), not parsed again by exec: every relayed message's outcome passes here.
  const run = (sql: string) => prepare(db, sql).run();
  run("SAVEPOINT mail_sending");
  try {
    const result = fn();
    run("RELEASE mail_sending");
    return result;
  } catch (error) {
    run("ROLLBACK TO mail_sending");
    run("RELEASE mail_sending");
    throw error;
  }
}
