// The embedded store: one SQLite file through node:sqlite (no native addon). WAL lets the
// console and the server use the same file at once; synchronous=FULL makes an acknowledged
// write survive kill -9 and power loss alike.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runMigrations } from "./migrations.ts";

export function openDatabase(dataDir: string): DatabaseSync {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, "platform.sqlite"));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  // The console and the server may write at the same moment; wait instead of failing.
  db.exec("PRAGMA busy_timeout = 5000");
  runMigrations(db);
  return db;
}

/** Runs fn in one IMMEDIATE transaction: the write lock is taken up front, so check-then-write is atomic. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
