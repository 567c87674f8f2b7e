// Group commit (decision SP1): the write transactions that requests started in the same turn of
// the event loop run one after the other inside ONE transaction of the store, each in a savepoint
// of its own, committed with one COMMIT; every caller's promise settles only after that COMMIT
// returned. On SQLite with synchronous=FULL a commit costs an fsync of the WAL, so under
// concurrent sends the fsync, not the work, bounded the accept path (one per request).
// PostgreSQL already shares the flush of concurrent commits: there each member is simply a
// transaction of its own.
//
// What each caller is promised does not change: its work runs atomically (its own savepoint:
// a member that throws leaves no row and does not disturb the others), sees the writes of the
// members before it (a cap or idempotency check inside the work is still checked inside the
// write transaction), and its answer is given only when its rows are on disk.
import type { Sql, Store } from "./sql.ts";
import { SqliteStore } from "./sqlite-store.ts";

interface Member {
  work: (tx: Sql) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** More waiting members go to the next commit: one commit's WAL stays small. */
const MAX_MEMBERS = 256;

const queues = new WeakMap<SqliteStore, Member[]>();

/**
 * Runs `work` in the next group commit of `store` and answers its result once committed. Inside
 * an open transaction of the caller it is a savepoint of that one (the caller commits).
 */
export function groupCommit<T>(store: Store, work: (tx: Sql) => Promise<T>): Promise<T> {
  if (!(store instanceof SqliteStore) || store.inTransaction()) return store.transaction(work);
  let queue = queues.get(store);
  if (!queue) queues.set(store, (queue = []));
  if (queue.length === 0) setImmediate(() => void flush(store));
  return new Promise<T>((resolve, reject) => queue.push({ work, resolve: resolve as (value: unknown) => void, reject }));
}

async function flush(store: SqliteStore): Promise<void> {
  const queue = queues.get(store)!;
  if (!store.db.isOpen) {
    // Closed (a stop) before the commit: nothing of these was written, none is acknowledged.
    for (const m of queue.splice(0)) m.reject(new Error("the database was closed before the commit"));
    return;
  }
  const batch = queue.splice(0, MAX_MEMBERS);
  if (queue.length) setImmediate(() => void flush(store));
  let outcomes: PromiseSettledResult<unknown>[];
  try {
    outcomes = await store.transaction(async (tx) => {
      const settled: PromiseSettledResult<unknown>[] = [];
      for (const m of batch) {
        try {
          settled.push({ status: "fulfilled", value: await tx.transaction(m.work) });
        } catch (reason) {
          settled.push({ status: "rejected", reason });
        }
      }
      return settled;
    });
  } catch (error) {
    // The commit (or a savepoint statement) failed: nothing of this batch is on disk.
    for (const m of batch) m.reject(error);
    return;
  }
  batch.forEach((m, i) => {
    const o = outcomes[i];
    if (o.status === "fulfilled") m.resolve(o.value);
    else m.reject(o.reason);
  });
}

