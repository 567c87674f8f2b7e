// The accept path's group commit (decision SP1) over the Store: the sends that requests started
// in the same turn of the event loop run one after the other inside ONE transaction, each in a
// savepoint of its own (one that throws leaves no row and does not disturb the others; an
// idempotency key is still checked inside the write transaction), and every caller's promise
// settles only after that COMMIT: on SQLite one fsync for all of them instead of one each.
// PostgreSQL already shares the flush of concurrent commits: there each send is a transaction of
// its own.
//
// Transitional (issue 37): main's db/group-commit.ts groups synchronous work on a DatabaseSync,
// which code written once over Sql cannot hand it; the foundation is moving the group commit onto
// the Store as `groupCommit(store, work)`, this function's signature. When it lands, the import
// in sent-message-repository.ts points at db/group-commit.ts and this file goes.
import type { Sql, Store } from "../db/sql.ts";

interface Member {
  work: (tx: Sql) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** More waiting members go to the next commit: one commit's WAL stays small. */
const MAX_MEMBERS = 256;

const queues = new WeakMap<Store, Member[]>();

/**
 * Runs work in the next group commit of store and answers its result once committed. Not for use
 * inside an open transaction: the caller would wait for a commit its own transaction blocks.
 */
export function groupCommit<T>(store: Store, work: (tx: Sql) => Promise<T>): Promise<T> {
  if (store.dialect.kind !== "sqlite") return store.transaction(work);
  let queue = queues.get(store);
  if (!queue) queues.set(store, (queue = []));
  if (queue.length === 0) setImmediate(() => void flush(store, queue));
  return new Promise<T>((resolve, reject) => queue.push({ work, resolve: resolve as (value: unknown) => void, reject }));
}

async function flush(store: Store, queue: Member[]): Promise<void> {
  const batch = queue.splice(0, MAX_MEMBERS);
  if (queue.length) setImmediate(() => void flush(store, queue));
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
    // BEGIN or COMMIT failed (or the store was closed): nothing of this batch is on disk.
    for (const m of batch) m.reject(error);
    return;
  }
  batch.forEach((m, i) => {
    const o = outcomes[i];
    if (o.status === "fulfilled") m.resolve(o.value);
    else m.reject(o.reason);
  });
}
