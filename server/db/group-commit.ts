// Group commit on the embedded store: the write transactions that requests started in the same
// turn of the event loop are run one after the other inside ONE SQLite transaction, each under
// a savepoint of its own, and committed with one fsync; every caller's promise settles only after
// that COMMIT returned. With synchronous=FULL a commit costs an fsync of the WAL, and node:sqlite
// holds the thread during it, so under concurrent sends the fsync, not the work, bounded the
// accept path (one per request); PostgreSQL does the same for concurrent commits.
//
// What each caller is promised does not change: its work runs atomically (its own savepoint:
// a member that throws leaves no row and does not disturb the others), sees the writes of the
// members before it (a cap or idempotency check inside the work is still checked inside the
// write transaction), and its answer is given only when its rows are on disk (decision SP1).
import type { DatabaseSync } from "node:sqlite";
import { savepoint } from "./database.ts";

interface Member {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** More waiting members go to the next commit: one commit's WAL stays small. */
const MAX_MEMBERS = 256;

const queues = new WeakMap<DatabaseSync, Member[]>();

/**
 * Runs `work` (synchronous, writing through `db`) in the next group commit of `db`. Not for use
 * inside an open transaction: the caller would wait for a commit that its own transaction blocks.
 */
export function inGroupCommit<T>(db: DatabaseSync, work: () => T): Promise<T> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = []));
  if (queue.length === 0) setImmediate(() => flush(db));
  return new Promise<T>((resolve, reject) => queue.push({ work, resolve: resolve as (value: unknown) => void, reject }));
}

function flush(db: DatabaseSync): void {
  const queue = queues.get(db)!;
  if (!db.isOpen) {
    // Closed (a stop) before the commit: nothing of these was written, none is acknowledged.
    for (const m of queue.splice(0)) m.reject(new Error("the database was closed before the commit"));
    return;
  }
  const batch = queue.splice(0, MAX_MEMBERS);
  if (queue.length) setImmediate(() => flush(db));
  const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
  try {
    db.exec("BEGIN IMMEDIATE");
  } catch (error) {
    for (const m of batch) m.reject(error);
    return;
  }
  try {
    for (const m of batch) outcomes.push(runMember(db, m.work));
    db.exec("COMMIT");
  } catch (error) {
    // The commit (or a savepoint statement) failed: nothing of this batch is on disk.
    if (db.isTransaction) db.exec("ROLLBACK");
    for (const m of batch) m.reject(error);
    return;
  }
  batch.forEach((m, i) => {
    const o = outcomes[i];
    if (o.ok) m.resolve(o.value);
    else m.reject(o.error);
  });
}

function runMember(db: DatabaseSync, work: () => unknown): { ok: true; value: unknown } | { ok: false; error: unknown } {
  try {
    const value = savepoint(db, "group_member", () => {
      const value = work();
      // Work that awaited would run outside its savepoint and after the commit.
      if (value instanceof Promise) throw new Error("group commit work must be synchronous");
      return value;
    });
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}
