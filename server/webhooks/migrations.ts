// Schema of the delivery engine (server/webhooks/README.md), on top of the outbox's (version 10):
// where each delivery stands in the W2 schedule, apart from its attempt count (a redelivery is an
// attempt but not a step), and since when a subscription's attempts have all failed (deactivation).
export const webhookDeliveryMigrations = `
ALTER TABLE webhook_deliveries ADD COLUMN schedule_step INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN last_error TEXT;
ALTER TABLE webhooks ADD COLUMN failing_since INTEGER;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'pending';
`;
