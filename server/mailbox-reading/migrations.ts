// Schema of received mail. The raw bytes of a message are stored once per SMTP transaction
// (`message_contents`) and each mailbox that received it holds a copy row pointing at them, so a
// group of 500 members does not store 500 copies of a 25 MB message; each mailbox's usedBytes
// still counts the full size, as the mailbox owner sees it.
export const mailboxMessageMigrations = `
CREATE TABLE message_contents (
  id INTEGER PRIMARY KEY,
  raw BLOB NOT NULL,
  size INTEGER NOT NULL,
  -- The parsed parts the API serves whole (headers, text, html, to, references), as JSON.
  detail TEXT NOT NULL
);
-- One row per message per mailbox. uid is the message's id inside its mailbox (seed: ids are per
-- mailbox), 1, 2, 3... in the order of arrival.
CREATE TABLE mailbox_messages (
  id INTEGER PRIMARY KEY,
  mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
  uid INTEGER NOT NULL,
  content_id INTEGER NOT NULL REFERENCES message_contents (id),
  received_ms INTEGER NOT NULL,
  subject TEXT NOT NULL,
  from_json TEXT NOT NULL,
  -- Lowercased addresses, each followed by one space and the list led by one, so that an exact
  -- address is instr(col, ' ' || addr || ' ') and a substring is instr(col, part).
  from_addrs TEXT NOT NULL,
  to_addrs TEXT NOT NULL,
  has_attachment INTEGER NOT NULL,
  rfc_message_id TEXT NOT NULL,
  preview TEXT NOT NULL,
  UNIQUE (mailbox_id, uid)
);
-- Newest first within a mailbox: the list's order and its since/before range, and COUNT(*) from
-- the index alone.
CREATE INDEX mailbox_messages_newest ON mailbox_messages (mailbox_id, received_ms, uid);
CREATE INDEX mailbox_messages_rfc_id ON mailbox_messages (mailbox_id, rfc_message_id);
CREATE INDEX mailbox_messages_content ON mailbox_messages (content_id);
-- The last copy of a content gone (its mailbox deleted), the bytes go too.
CREATE TRIGGER mailbox_messages_release AFTER DELETE ON mailbox_messages
WHEN NOT EXISTS (SELECT 1 FROM mailbox_messages WHERE content_id = OLD.content_id)
BEGIN
  DELETE FROM message_contents WHERE id = OLD.content_id;
END;
`;

// The list's filters (hasAttachment, with, from, to) and its total read these columns for every
// message of the range: in the index they are read in index order, without a table lookup per
// message (measured in server/README.md). It covers what mailbox_messages_newest did.
export const mailboxMessageFilterIndex = `
CREATE INDEX mailbox_messages_filter ON mailbox_messages (mailbox_id, received_ms, uid, has_attachment, from_addrs, to_addrs);
DROP INDEX mailbox_messages_newest;
-- hasAttachment alone: its page and its total read only the matching entries.
CREATE INDEX mailbox_messages_attachment ON mailbox_messages (mailbox_id, has_attachment, received_ms, uid);
-- "with" (an exact address): the messages of a mailbox by each of their sender and recipient
-- addresses, so the filter reads only the matching entries. Gone with the mailbox.
CREATE TABLE mailbox_message_addresses (
  mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
  address TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  PRIMARY KEY (mailbox_id, address, received_ms, uid)
) WITHOUT ROWID;
-- The unfiltered total of a list, kept by triggers rather than counted: COUNT(*) over 100,000
-- index entries was most of an unfiltered page's time.
CREATE TABLE mailbox_message_counts (
  mailbox_id TEXT PRIMARY KEY REFERENCES mailboxes (id) ON DELETE CASCADE,
  messages INTEGER NOT NULL
);
INSERT INTO mailbox_message_counts (mailbox_id, messages) SELECT mailbox_id, COUNT(*) FROM mailbox_messages GROUP BY mailbox_id;
CREATE TRIGGER mailbox_messages_count_up AFTER INSERT ON mailbox_messages BEGIN
  INSERT INTO mailbox_message_counts (mailbox_id, messages) VALUES (NEW.mailbox_id, 1)
  ON CONFLICT (mailbox_id) DO UPDATE SET messages = messages + 1;
END;
CREATE TRIGGER mailbox_messages_count_down AFTER DELETE ON mailbox_messages BEGIN
  UPDATE mailbox_message_counts SET messages = messages - 1 WHERE mailbox_id = OLD.mailbox_id;
END;
`;
