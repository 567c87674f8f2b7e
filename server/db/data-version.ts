// SQLite's data_version changes when another connection commits to the file (never for this
// connection's own writes), which is exactly "someone else may have changed what we cached".
import type { DatabaseSync } from "node:sqlite";

export function otherWriterWatcher(db: DatabaseSync): () => boolean {
  const statement = db.prepare("PRAGMA data_version");
  let last = (statement.get() as { data_version: number }).data_version;
  return () => {
    const now = (statement.get() as { data_version: number }).data_version;
    if (now === last) return false;
    last = now;
    return true;
  };
}
