// Prepared statements cached per database: preparing costs more than running a small query,
// and the hot path (key lookup, lists) runs the same few statements on every request.
import type { DatabaseSync, StatementSync } from "node:sqlite";

const caches = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

export function prepare(db: DatabaseSync, sql: string): StatementSync {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}
