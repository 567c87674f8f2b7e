// Schema of outgoing mail. A message row holds what the accept path decided (rendered content,
// headers, envelope) so the relay composes the same MIME on every attempt; attachments sit in
// their own table as bytes. Times are epoch ms from the injectable clock. The history is ordered
// by SQLite's rowid; PostgreSQL has a `seq` of its own for it.
import type { Migration } from "../db/migration.ts";

export const mailSendingMigrations: Migration[] = [
  {
    version: 109,
    name: "outgoing mail (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE sent_messages (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        status TEXT NOT NULL,
        from_addr TEXT NOT NULL,
        to_addr TEXT NOT NULL,
        cc TEXT NOT NULL DEFAULT '[]',
        bcc TEXT NOT NULL DEFAULT '[]',
        reply_to TEXT NOT NULL DEFAULT '[]',
        subject TEXT NOT NULL DEFAULT '',
        text_body TEXT,
        html_body TEXT,
        headers TEXT NOT NULL DEFAULT '{}',
        category TEXT,
        campaign TEXT,
        stream TEXT NOT NULL,
        scope TEXT NOT NULL DEFAULT '',
        track BOOLEAN NOT NULL DEFAULT FALSE,
        unsubscribe BOOLEAN NOT NULL DEFAULT FALSE,
        rfc_message_id TEXT NOT NULL,
        return_path TEXT NOT NULL,
        send_at BIGINT,
        relay TEXT,
        relay_message_id TEXT,
        opens INTEGER NOT NULL DEFAULT 0,
        clicks INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        sent_at BIGINT,
        delivered_at BIGINT,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX sent_messages_recent ON sent_messages (project_id, created_at DESC, id);
      CREATE INDEX sent_messages_status ON sent_messages (project_id, status, created_at DESC);
      CREATE INDEX sent_messages_campaign ON sent_messages (project_id, campaign, created_at DESC);
      CREATE TABLE sent_attachments (
        message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        filename TEXT NOT NULL,
        content_type TEXT,
        content BYTEA NOT NULL,
        PRIMARY KEY (message_id, idx)
      );
      CREATE TABLE sent_message_events (
        message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
        event TEXT NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX sent_message_events_message ON sent_message_events (message_id, at);
      CREATE TABLE sent_message_links (
        message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        url TEXT NOT NULL,
        clicks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (message_id, idx)
      );
      -- kind 'hard': a hard bounce, both streams, whole project (scope ''). kind 'marketing': a
      -- complaint or unsubscribe, marketing stream only, for one scope owner ('' = whole project).
      CREATE TABLE suppressions (
        project_id TEXT NOT NULL REFERENCES projects (id),
        address TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('hard', 'marketing')),
        scope TEXT NOT NULL DEFAULT '',
        reason TEXT NOT NULL,
        message_id TEXT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (project_id, address, kind, scope)
      );
      -- Decision E6: the first response per (project, key) for 24 hours. The primary key is the
      -- guard against concurrent duplicates; the check and the insert share one write transaction
      -- (on PostgreSQL also an advisory lock on (project, key), so a duplicate on another instance
      -- waits and replays instead of failing on the key).
      CREATE TABLE send_idempotency (
        project_id TEXT NOT NULL REFERENCES projects (id),
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        response TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (project_id, key)
      );
      CREATE TABLE mail_templates (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        current_version INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (project_id, name)
      );
      CREATE TABLE mail_template_versions (
        template_id TEXT NOT NULL REFERENCES mail_templates (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        subject TEXT NOT NULL,
        text_body TEXT,
        html_body TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (template_id, version)
      );
      -- Each hand-over attempt of a message's \`to\` recipient, with what it led to and why (issue 27
      -- item 3, decision H3). Kept beside the history, not in it: the history's event values are
      -- the seed's four, and an attempt carries a reason and the answering host.
      CREATE TABLE sent_message_attempts (
        message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        at BIGINT NOT NULL,
        outcome TEXT NOT NULL,
        reason TEXT NOT NULL,
        host TEXT,
        PRIMARY KEY (message_id, attempt)
      );`,
    postgres: `ALTER TABLE sent_message_events ADD COLUMN seq BIGSERIAL PRIMARY KEY;`,
  },
];
