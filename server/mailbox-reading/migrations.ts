// Schema of received mail. The raw bytes of a message are stored once per SMTP transaction
// (`message_contents`) and each mailbox that received it holds a copy row pointing at them, so a
// group of 500 members does not store 500 copies of a 25 MB message; each mailbox's usedBytes
// still counts the full size, as the mailbox owner sees it. uid is the message's id inside its
// mailbox (seed: ids are per mailbox), 1, 2, 3... in the order of arrival.
//
// Where the stores differ, each keeps its numbers its own way:
// - SQLite keeps them with triggers, in the transaction that stores or removes a message,
//   whichever connection writes it: the unfiltered total per mailbox (COUNT(*) over 100,000 index
//   entries was most of an unfiltered page's time), and the distinct sender and recipient lists of
//   a mailbox with how many messages carry each: the substring filters `from`/`to` test the needle
//   once per list, and the total of a lone `from` or `to` is the sum of the matching lists' counts
//   (an instr over every message cost 30 ms of CPU per request at 100,000 messages). Measured and
//   not taken: an FTS5 trigram index over the address lists (24 to 36 ms for one needle; addresses
//   share most of their trigrams), server/README.md.
// - PostgreSQL's delivery transaction keeps them: `mailbox_message_counts` also holds each
//   mailbox's last uid, and its row lock orders two instances storing into one mailbox (the next
//   uid is one UPDATE). The substring filters are LIKE over the address lists with pg_trgm GIN
//   indexes, PostgreSQL's own answer to "contains".
// A message whose From domain failed DMARC with policy quarantine is shown marked (decision I3).
import type { Migration } from "../db/migration.ts";

export const mailboxMessageMigrations: Migration[] = [
  {
    version: 111,
    name: "received mail (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE message_contents (
        id SERIAL_KEY,
        raw BYTEA NOT NULL,
        size INTEGER NOT NULL,
        -- The parsed parts the API serves whole (headers, text, html, to, references), as JSON.
        detail TEXT NOT NULL
      );
      CREATE TABLE mailbox_messages (
        id SERIAL_KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        uid INTEGER NOT NULL,
        content_id BIGINT NOT NULL REFERENCES message_contents (id),
        received_ms BIGINT NOT NULL,
        subject TEXT NOT NULL,
        from_json TEXT NOT NULL,
        -- Lowercased addresses, each followed by one space and the list led by one, so that an
        -- exact address is instr(col, ' ' || addr || ' ') and a substring is instr(col, part).
        from_addrs TEXT NOT NULL,
        to_addrs TEXT NOT NULL,
        has_attachment BOOLEAN NOT NULL,
        rfc_message_id TEXT NOT NULL,
        preview TEXT NOT NULL,
        quarantined BOOLEAN NOT NULL DEFAULT FALSE,
        UNIQUE (mailbox_id, uid)
      );
      -- Newest first within a mailbox: the list's order and its since/before range.
      CREATE INDEX mailbox_messages_newest ON mailbox_messages (mailbox_id, received_ms, uid);
      CREATE INDEX mailbox_messages_rfc_id ON mailbox_messages (mailbox_id, rfc_message_id);
      CREATE INDEX mailbox_messages_content ON mailbox_messages (content_id);
      -- hasAttachment alone: its page and its total read only the matching entries.
      CREATE INDEX mailbox_messages_attachment ON mailbox_messages (mailbox_id, has_attachment, received_ms, uid);
      -- "with" (an exact address): the messages of a mailbox by each of their sender and recipient
      -- addresses, so the filter reads only the matching entries. Gone with the mailbox.
      CREATE TABLE mailbox_message_addresses (
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        address TEXT NOT NULL,
        received_ms BIGINT NOT NULL,
        uid INTEGER NOT NULL,
        PRIMARY KEY (mailbox_id, address, received_ms, uid)
      ) WITHOUT ROWID;
      CREATE TABLE mailbox_message_counts (
        mailbox_id TEXT PRIMARY KEY REFERENCES mailboxes (id) ON DELETE CASCADE,
        messages INTEGER NOT NULL
      );`,
    sqlite: `
      -- The last copy of a content gone (its mailbox deleted), the bytes go too.
      CREATE TRIGGER mailbox_messages_release AFTER DELETE ON mailbox_messages
      WHEN NOT EXISTS (SELECT 1 FROM mailbox_messages WHERE content_id = OLD.content_id)
      BEGIN
        DELETE FROM message_contents WHERE id = OLD.content_id;
      END;
      CREATE TRIGGER mailbox_messages_count_up AFTER INSERT ON mailbox_messages BEGIN
        INSERT INTO mailbox_message_counts (mailbox_id, messages) VALUES (NEW.mailbox_id, 1)
        ON CONFLICT (mailbox_id) DO UPDATE SET messages = messages + 1;
      END;
      CREATE TRIGGER mailbox_messages_count_down AFTER DELETE ON mailbox_messages BEGIN
        UPDATE mailbox_message_counts SET messages = messages - 1 WHERE mailbox_id = OLD.mailbox_id;
      END;
      CREATE TABLE mailbox_address_lists (
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('from', 'to')),
        -- Exactly mailbox_messages.from_addrs or to_addrs.
        addrs TEXT NOT NULL,
        messages INTEGER NOT NULL,
        PRIMARY KEY (mailbox_id, role, addrs)
      ) WITHOUT ROWID;
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
      CREATE INDEX mailbox_messages_to ON mailbox_messages (mailbox_id, to_addrs, received_ms, uid);`,
    postgres: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      ALTER TABLE mailbox_message_counts ADD COLUMN last_uid INTEGER NOT NULL;
      CREATE INDEX mailbox_messages_from_trgm ON mailbox_messages USING gin (from_addrs gin_trgm_ops);
      CREATE INDEX mailbox_messages_to_trgm ON mailbox_messages USING gin (to_addrs gin_trgm_ops);
      -- The last copy of a content gone (its mailbox deleted), the bytes go too. Locking the
      -- content row first makes a second transaction deleting the other last copy at once wait
      -- for the first's commit (under read committed each saw the other's copy, and neither
      -- released the bytes); its next statement then sees that copy gone.
      CREATE FUNCTION mailbox_messages_release() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM message_contents WHERE id = OLD.content_id FOR UPDATE;
        IF NOT EXISTS (SELECT 1 FROM mailbox_messages WHERE content_id = OLD.content_id) THEN
          DELETE FROM message_contents WHERE id = OLD.content_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER mailbox_messages_release AFTER DELETE ON mailbox_messages
        FOR EACH ROW EXECUTE FUNCTION mailbox_messages_release();`,
  },
];
