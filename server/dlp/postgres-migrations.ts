// Schema of the DLP log on PostgreSQL (versions 30-39; migrations.ts is SQLite's). The policy's
// columns are on `projects` (db/postgres/migrations.ts, version 1). `seq` orders the log as
// SQLite's AUTOINCREMENT does.
import type { PgMigration } from "../db/postgres/migrations.ts";

export const dlpPgMigrations: PgMigration[] = [
  {
    version: 30,
    name: "dlp log",
    sql: `
      CREATE TABLE dlp_events (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_id TEXT NOT NULL REFERENCES projects (id),
        created_at TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('warned', 'blocked')),
        message_id TEXT,
        from_addr TEXT NOT NULL,
        to_addr TEXT NOT NULL,
        finding TEXT NOT NULL
      );
      CREATE INDEX dlp_events_project ON dlp_events (project_id, seq);`,
  },
];
