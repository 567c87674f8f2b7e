// Schema of the job queue on PostgreSQL (server/jobs/README.md), the same table as migrations.ts
// plus `leased_by`: the application_name of the instance holding the lease. Several instances
// share the queue, so a lease is only void when it runs out or its holder's sessions are gone
// (kill -9), never merely because some instance started.
import type { PgMigration } from "../db/postgres/migrations.ts";

export const jobPgMigrations: PgMigration[] = [
  {
    version: 5,
    name: "job queue",
    sql: `
      CREATE TABLE jobs (
        id BIGSERIAL PRIMARY KEY,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        run_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        group_key TEXT,
        lease_until BIGINT,
        leased_by TEXT,
        last_error TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX jobs_due ON jobs (run_at, id);
      CREATE INDEX jobs_kind ON jobs (kind);`,
  },
  {
    // SQLite's migration 9 (migrations.ts): a claim reads each group's due jobs through this index.
    version: 9,
    name: "job queue: due jobs by group",
    sql: `CREATE INDEX jobs_group_due ON jobs (group_key, run_at, id);`,
  },
];
