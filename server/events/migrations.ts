// Schema of the event outbox. An event is written once; each subscription that wants it gets a
// row in webhook_deliveries (the delivery log the API serves) and a `webhook.deliver` job.
export const eventMigrations = `
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id),
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_project ON events (project_id, created_at);
ALTER TABLE webhook_deliveries ADD COLUMN event_id TEXT REFERENCES events (id);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, id);
`;
