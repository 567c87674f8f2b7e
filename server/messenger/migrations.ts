// Schema of the messenger area. A bot belongs to at most one project (`bot_id` is unique across
// projects), so the same bot added twice, here or elsewhere, is one constraint violation. Tokens
// and webhook secrets are stored sealed with the server key. Bot and user ids of the messenger
// platform pass 2^31 (BIGINT). Links created in the same millisecond are ordered by SQLite's rowid;
// PostgreSQL has `bot_links.seq` for it.
import type { Migration } from "../db/migration.ts";

export const messengerMigrations: Migration[] = [
  {
    version: 113,
    name: "messenger bots, presets and creation links (baseline of release 9cecd55)",
    baseline: true,
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
    postgres: `ALTER TABLE bot_links ADD COLUMN seq BIGSERIAL UNIQUE;`,
  },
  {
    // Forwards to the project are signed (decision W9) with a secret of the bot's own, made when
    // forwarding is set, or at the first forward of a bot whose forwarding was set before; the
    // owner reads it from POST /v1/messenger/mybots/{id}/webhook, which keeps it.
    version: 203,
    name: "messenger forward signing secrets",
    sql: `ALTER TABLE bots ADD COLUMN forward_secret_enc TEXT;`,
  },
];
