// Schema of the job queue (server/jobs/README.md). A job is a row until it is done; a claimed job
// carries a lease, so a job whose worker died (kill -9) becomes claimable again.
export const jobMigrations = `
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  run_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  group_key TEXT,
  lease_until INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (run_at);
CREATE INDEX jobs_kind ON jobs (kind);
`;

// A claim that refills a busy group, or goes on past a backlog at the head of the queue, reads
// each group's due jobs in (run_at, id) order through this index (the rowid ends every SQLite
// index), instead of walking jobs_due over every group's jobs (claim-order.ts).
export const jobGroupIndexMigration = `CREATE INDEX jobs_group_due ON jobs (group_key, run_at);`;
