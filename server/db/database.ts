// The embedded store: one SQLite file through node:sqlite (no native addon). WAL lets the
// console and the server use the same file at once; synchronous=FULL makes an acknowledged
// write survive kill -9 and power loss alike.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrateSqliteNow } from "./migrate.ts";
import { migrations } from "./migrations.ts";
import { prepare } from "./statements.ts";

export function openDatabase(dataDir: string): DatabaseSync {
  const file = path.join(dataDir, "platform.sqlite");
  restrictDataDir(dataDir, file);
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  // The console and the server may write at the same moment; wait instead of failing.
  db.exec("PRAGMA busy_timeout = 5000");
  const ran = migrateSqliteNow(db, migrations);
  // A migration may have rewritten secrets: leave no older page of them in the WAL.
  if (ran.length) db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
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

/**
 * Runs fn under a savepoint of the transaction in progress: a throw undoes fn's writes only and is
 * thrown on, the rest of the transaction stands. The statements are prepared once (statements.ts),
 * not parsed on every call: savepoints wrap every job outcome and every grouped send.
 */
export function savepoint<T>(db: DatabaseSync, name: string, fn: () => T): T {
  const run = (sql: string) => prepare(db, sql).run();
  run(`SAVEPOINT ${name}`);
  try {
    const result = fn();
    run(`RELEASE ${name}`);
    return result;
  } catch (error) {
    run(`ROLLBACK TO ${name}`);
    run(`RELEASE ${name}`);
    throw error;
  }
}

/**
 * The data folder holds key hashes, sealed secrets and the server key: 0700 for the folder, 0600
 * for the database. SQLite gives its -wal and -shm files the mode of the database file, so
 * creating that file 0600 before SQLite does covers them; files of older installs are narrowed.
 */
function restrictDataDir(dataDir: string, file: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}
