// Schema of the event outbox. An event is written once; each subscription that wants it gets a
// row in webhook_deliveries (the delivery log the API serves, server/webhooks) and a
// `webhook.deliver` job.
import type { Migration } from "../db/migration.ts";

export const eventMigrations: Migration[] = [
  {
    version: 106,
    name: "event outbox (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE events (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX events_project ON events (project_id, created_at);`,
  },
];
