// Schema of the messenger area on PostgreSQL (versions 60-69; migrations.ts is SQLite's). Bot and
// user ids of the messenger platform pass 2^31, so they are BIGINT. `bot_links.seq` orders links
// created in the same millisecond as SQLite's rowid does.
import type { PgMigration } from "../db/postgres/migrations.ts";

export const messengerPgMigrations: PgMigration[] = [
  {
    version: 60,
    name: "messenger bots, presets and creation links",
    sql: `
      CREATE TABLE bots (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        bot_id BIGINT NOT NULL UNIQUE,
        username TEXT NOT NULL,
        name TEXT NOT NULL,
        note TEXT,
        token_enc TEXT NOT NULL,
        hook_id TEXT UNIQUE,
        hook_secret_enc TEXT,
        forward_url TEXT,
        forward_error_at BIGINT,
        forward_error TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX bots_project ON bots (project_id, created_at);
      CREATE TABLE bot_presets (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        forward_url TEXT,
        commands TEXT,
        description TEXT,
        short_description TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX bot_presets_project ON bot_presets (project_id, created_at);
      CREATE TABLE bot_links (
        seq BIGSERIAL UNIQUE,
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        suggested_username TEXT NOT NULL,
        name TEXT NOT NULL,
        preset_id TEXT,
        expires_at BIGINT NOT NULL,
        telegram_user_id BIGINT,
        bot TEXT REFERENCES bots (id),
        created_at TEXT NOT NULL
      );
      CREATE INDEX bot_links_user ON bot_links (telegram_user_id);`,
  },
];
