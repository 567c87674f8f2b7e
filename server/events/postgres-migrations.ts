// Schema of the event outbox on PostgreSQL (migrations.ts), with the subscriptions and the
// delivery log it writes to (webhooks' version 4 and 11 on SQLite; here their final shape).
import type { PgMigration } from "../db/postgres/migrations.ts";

export const eventPgMigrations: PgMigration[] = [
  {
    version: 10,
    name: "event outbox, webhooks and their deliveries",
    sql: `
      CREATE TABLE events (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX events_project ON events (project_id, created_at);
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        secret_enc TEXT NOT NULL,
        active BOOLEAN NOT NULL DEFAULT true,
        failing_since BIGINT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX webhooks_project ON webhooks (project_id);
      -- The body as signed and sent: TEXT, byte for byte.
      CREATE TABLE webhook_deliveries (
        id BIGSERIAL PRIMARY KEY,
        webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event TEXT NOT NULL,
        status TEXT NOT NULL,
        http_code INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        next_attempt_at TEXT,
        event_id TEXT REFERENCES events (id),
        schedule_step INTEGER NOT NULL DEFAULT 0,
        last_error TEXT
      );
      CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, id);
      CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'pending';`,
  },
];
