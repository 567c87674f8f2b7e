// Schema of the DLP log (one row per finding); the policy's columns are on `projects`. `seq`
// orders the log.
import type { Migration } from "../db/migration.ts";

export const dlpMigrations: Migration[] = [
  {
    version: 110,
    name: "dlp log (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE dlp_events (
        seq SERIAL_KEY_ONCE,
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
