// Schema of outgoing mail (versions 20-29). A message row holds what the accept path decided
// (rendered content, headers, envelope) so the relay composes the same MIME on every attempt;
// attachments sit in their own table as bytes. Times are epoch ms from the injectable clock.
export const mailSendingMigrations = `
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
  track INTEGER NOT NULL DEFAULT 0,
  unsubscribe INTEGER NOT NULL DEFAULT 0,
  rfc_message_id TEXT NOT NULL,
  return_path TEXT NOT NULL,
  send_at INTEGER,
  relay TEXT,
  relay_message_id TEXT,
  opens INTEGER NOT NULL DEFAULT 0,
  clicks INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  sent_at INTEGER,
  delivered_at INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE INDEX sent_messages_recent ON sent_messages (project_id, created_at DESC, id);
CREATE INDEX sent_messages_status ON sent_messages (project_id, status, created_at DESC);
CREATE INDEX sent_messages_campaign ON sent_messages (project_id, campaign, created_at DESC);
CREATE TABLE sent_attachments (
  message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  filename TEXT NOT NULL,
  content_type TEXT,
  content BLOB NOT NULL,
  PRIMARY KEY (message_id, idx)
);
CREATE TABLE sent_message_events (
  message_id TEXT NOT NULL REFERENCES sent_messages (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  at INTEGER NOT NULL
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
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, address, kind, scope)
);
-- Decision E6: the first response per (project, key) for 24 hours. The primary key is the
-- guard against concurrent duplicates; the check and the insert share one write transaction.
CREATE TABLE send_idempotency (
  project_id TEXT NOT NULL REFERENCES projects (id),
  key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at INTEGER NOT NULL,
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
`;
