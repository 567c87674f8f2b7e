// Schema of the job queue (server/jobs/README.md). A job is a row until it is done; a claimed job
// carries a lease, so a job whose worker died (kill -9) becomes claimable again. A claim reads each
// group's due jobs in (run_at, id) order through jobs_group_due (claim-order.ts); on SQLite the
// rowid ends every index, on PostgreSQL the id is spelled out. PostgreSQL also has `leased_by`,
// the application_name of the instance holding the lease: several instances share the queue, so
// a lease is only void when it runs out or its holder's sessions are gone (kill -9).
import type { Migration } from "../db/migration.ts";

export const jobMigrations: Migration[] = [
  {
    version: 108,
    name: "job queue (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE jobs (
        id SERIAL_KEY_ONCE,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        run_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        group_key TEXT,
        lease_until BIGINT,
        last_error TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX jobs_kind ON jobs (kind);`,
    sqlite: `
      CREATE INDEX jobs_due ON jobs (run_at);
      CREATE INDEX jobs_group_due ON jobs (group_key, run_at);`,
    postgres: `
      ALTER TABLE jobs ADD COLUMN leased_by TEXT;
      CREATE INDEX jobs_due ON jobs (run_at, id);
      CREATE INDEX jobs_group_due ON jobs (group_key, run_at, id);`,
  },
];
