// Schema of API keys: the keys (only their hash is stored), their usage per quota period, and on
// PostgreSQL the rate limit's windows (decision L1).
import type { Migration } from "../db/migration.ts";

export const keyMigrations: Migration[] = [
  {
    version: 101,
    name: "api keys and their usage (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        hint TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        rate_limit INTEGER NOT NULL,
        daily_quota INTEGER,
        monthly_quota INTEGER,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE key_usage (
        key_id TEXT NOT NULL REFERENCES api_keys (id),
        period TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, period)
      );`,
    postgres: `
      CREATE INDEX api_keys_project ON api_keys (project_id, created_at);
      -- The rate limit's windows, shared by every instance: one row per key. SQLite's single
      -- process keeps them in memory (decision P4). UNLOGGED: a hit writes no WAL, so its commit
      -- waits for no disk; a crash of the database server empties the table, which starts every
      -- key's window afresh, as a restart of the single SQLite process does.
      CREATE UNLOGGED TABLE rate_windows (
        key TEXT PRIMARY KEY,
        window_start BIGINT NOT NULL,
        count INTEGER NOT NULL
      );`,
  },
];
