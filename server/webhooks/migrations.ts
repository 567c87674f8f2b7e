// Schema of webhook subscriptions and their delivery log (server/webhooks/README.md). A delivery
// records where it stands in the W2 schedule apart from its attempt count (a redelivery is an
// attempt but not a step); a subscription records since when its attempts have all failed
// (deactivation). The payload is the body as signed and sent: TEXT, byte for byte.
import type { Migration } from "../db/migration.ts";

export const webhookMigrations: Migration[] = [
  {
    version: 107,
    name: "webhooks and their deliveries (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        secret_enc TEXT NOT NULL,
        active BOOLEAN NOT NULL DEFAULT TRUE,
        created_at TEXT NOT NULL,
        failing_since BIGINT
      );
      CREATE TABLE webhook_deliveries (
        id SERIAL_KEY_ONCE,
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
    postgres: `CREATE INDEX webhooks_project ON webhooks (project_id);`,
  },
  {
    // A test event (POST /v1/webhooks/{id}/test) is a delivery like any other, marked: it has no
    // row in `events` (nothing happened), so its id lives in its payload only.
    version: 202,
    name: "test deliveries are marked",
    sql: `ALTER TABLE webhook_deliveries ADD COLUMN test BOOLEAN NOT NULL DEFAULT FALSE;`,
  },
];
