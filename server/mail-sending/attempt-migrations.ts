// Version 25: each hand-over attempt of a message's `to` recipient, with what it led to and why
// (issue 27 item 3, decision H3). Kept beside the history table, not in it: the history's event
// values are the seed's four, and an attempt carries a reason and the answering host.
const columns = (epoch: string) => `
  message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at ${epoch} NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT NOT NULL,
  host TEXT,
  PRIMARY KEY (message_id, attempt)`;

export const ATTEMPTS_VERSION = 25;
export const ATTEMPTS_NAME = "outgoing mail: delivery attempts";
export const attemptMigrationsSqlite = `CREATE TABLE sent_message_attempts (${columns("INTEGER")});`;
export const attemptMigrationsPg = `CREATE TABLE sent_message_attempts (${columns("BIGINT")});`;
