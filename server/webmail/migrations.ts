// Schema of webmail: one-time login links and sessions, stored as hashes of their tokens.
import type { Migration } from "../db/migration.ts";

export const webmailMigrations: Migration[] = [
  {
    version: 105,
    name: "webmail links and sessions (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE webmail_links (
        token_hash TEXT PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE TABLE webmail_sessions (
        id_hash TEXT PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        expires_at BIGINT NOT NULL
      );`,
  },
  {
    // The origins a login link allowed to frame webmail (decision M11), passed on to its session:
    // a JSON array of origins, NULL for none.
    version: 201,
    name: "webmail: frame ancestors of a link and its session",
    sql: `
      ALTER TABLE webmail_links ADD COLUMN frame_ancestors TEXT;
      ALTER TABLE webmail_sessions ADD COLUMN frame_ancestors TEXT;`,
  },
];
