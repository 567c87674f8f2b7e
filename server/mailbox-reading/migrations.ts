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

// The substring filters `from` and `to` (instr over a message's address list) counted their total
// by testing every message of the mailbox: 30 ms of CPU per request at 100,000 messages, 1.8 s at
// p99 under 10 concurrent requests. A mailbox has far fewer distinct sender lists and recipient
// lists than messages, and the filter's answer depends only on that list: so the distinct lists
// of a mailbox are kept with how many messages carry each, the needle is tested once per list,
// and the total of a lone `from` or `to` is the sum of the matching lists' counts. The messages of
// the matching lists are read through an index on (mailbox, list, time). Triggers keep the lists
// in the transaction that stores or removes the message, whichever connection writes it.
//
// The wide index of version 41 made walking past a deep `offset` read every address on the way
// (9 ms at offset 50,000); the time order gets a narrow index again, and the address indexes
// below take over the filter scans the wide one served.
//
// Measured and not taken: an FTS5 trigram index over the address lists. Addresses share most of
// their trigrams (every ".example", every domain of the mailbox), so a phrase query loads long
// doclists: 24 to 36 ms for one needle at 100,000 messages, no better than the scan it replaces,
// and it would still need a fallback under three characters.
export const mailboxAddressListIndex = `
CREATE TABLE mailbox_address_lists (
  mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('from', 'to')),
  -- Exactly mailbox_messages.from_addrs or to_addrs.
  addrs TEXT NOT NULL,
  messages INTEGER NOT NULL,
  PRIMARY KEY (mailbox_id, role, addrs)
) WITHOUT ROWID;
INSERT INTO mailbox_address_lists (mailbox_id, role, addrs, messages)
  SELECT mailbox_id, 'from', from_addrs, COUNT(*) FROM mailbox_messages GROUP BY mailbox_id, from_addrs;
INSERT INTO mailbox_address_lists (mailbox_id, role, addrs, messages)
  SELECT mailbox_id, 'to', to_addrs, COUNT(*) FROM mailbox_messages GROUP BY mailbox_id, to_addrs;
CREATE TRIGGER mailbox_messages_lists_up AFTER INSERT ON mailbox_messages BEGIN
  INSERT INTO mailbox_address_lists (mailbox_id, role, addrs, messages) VALUES (NEW.mailbox_id, 'from', NEW.from_addrs, 1)
  ON CONFLICT (mailbox_id, role, addrs) DO UPDATE SET messages = messages + 1;
  INSERT INTO mailbox_address_lists (mailbox_id, role, addrs, messages) VALUES (NEW.mailbox_id, 'to', NEW.to_addrs, 1)
  ON CONFLICT (mailbox_id, role, addrs) DO UPDATE SET messages = messages + 1;
END;
CREATE TRIGGER mailbox_messages_lists_down AFTER DELETE ON mailbox_messages BEGIN
  UPDATE mailbox_address_lists SET messages = messages - 1 WHERE mailbox_id = OLD.mailbox_id AND role = 'from' AND addrs = OLD.from_addrs;
  UPDATE mailbox_address_lists SET messages = messages - 1 WHERE mailbox_id = OLD.mailbox_id AND role = 'to' AND addrs = OLD.to_addrs;
  DELETE FROM mailbox_address_lists WHERE mailbox_id = OLD.mailbox_id AND role = 'from' AND addrs = OLD.from_addrs AND messages <= 0;
  DELETE FROM mailbox_address_lists WHERE mailbox_id = OLD.mailbox_id AND role = 'to' AND addrs = OLD.to_addrs AND messages <= 0;
END;
CREATE INDEX mailbox_messages_from ON mailbox_messages (mailbox_id, from_addrs, received_ms, uid);
CREATE INDEX mailbox_messages_to ON mailbox_messages (mailbox_id, to_addrs, received_ms, uid);
CREATE INDEX mailbox_messages_newest ON mailbox_messages (mailbox_id, received_ms, uid);
DROP INDEX mailbox_messages_filter;
`;

// Its From domain failed DMARC with policy quarantine (decision I3): the copy is shown marked.
// A column of the copy row, as the list shows it; every message before this version had none.
export const mailboxMessageQuarantine = `
ALTER TABLE mailbox_messages ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0;
`;
