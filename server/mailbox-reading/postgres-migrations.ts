// Schema of received mail on PostgreSQL (versions 40-49; migrations.ts is SQLite's), in its
// current shape. The raw bytes are BYTEA, stored once per SMTP transaction; lists never read them.
// Where SQLite keeps its numbers with triggers, here the delivery transaction keeps them:
// `mailbox_message_counts` holds each mailbox's message count and last uid, and its row lock is
// what orders two instances storing into one mailbox at once (the next uid is one UPDATE). The
// substring filters `from`/`to` are LIKE over the address lists with pg_trgm GIN indexes
// (PostgreSQL's own answer to "contains", where SQLite needed its distinct-lists table); `with`
// reads an index of (mailbox, address, time) as on SQLite.
import type { PgMigration } from "../db/postgres/migrations.ts";

export const mailboxMessagePgMigrations: PgMigration[] = [
  {
    version: 40,
    name: "received mail",
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE TABLE message_contents (
        id BIGSERIAL PRIMARY KEY,
        raw BYTEA NOT NULL,
        size INTEGER NOT NULL,
        detail TEXT NOT NULL
      );
      CREATE TABLE mailbox_messages (
        id BIGSERIAL PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        uid INTEGER NOT NULL,
        content_id BIGINT NOT NULL REFERENCES message_contents (id),
        received_ms BIGINT NOT NULL,
        subject TEXT NOT NULL,
        from_json TEXT NOT NULL,
        -- Lowercased addresses, each followed by one space and the list led by one (as on SQLite).
        from_addrs TEXT NOT NULL,
        to_addrs TEXT NOT NULL,
        has_attachment BOOLEAN NOT NULL,
        rfc_message_id TEXT NOT NULL,
        preview TEXT NOT NULL,
        UNIQUE (mailbox_id, uid)
      );
      CREATE INDEX mailbox_messages_newest ON mailbox_messages (mailbox_id, received_ms, uid);
      CREATE INDEX mailbox_messages_rfc_id ON mailbox_messages (mailbox_id, rfc_message_id);
      CREATE INDEX mailbox_messages_content ON mailbox_messages (content_id);
      CREATE INDEX mailbox_messages_attachment ON mailbox_messages (mailbox_id, has_attachment, received_ms, uid);
      CREATE INDEX mailbox_messages_from_trgm ON mailbox_messages USING gin (from_addrs gin_trgm_ops);
      CREATE INDEX mailbox_messages_to_trgm ON mailbox_messages USING gin (to_addrs gin_trgm_ops);
      CREATE TABLE mailbox_message_addresses (
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        address TEXT NOT NULL,
        received_ms BIGINT NOT NULL,
        uid INTEGER NOT NULL,
        PRIMARY KEY (mailbox_id, address, received_ms, uid)
      );
      CREATE TABLE mailbox_message_counts (
        mailbox_id TEXT PRIMARY KEY REFERENCES mailboxes (id) ON DELETE CASCADE,
        messages INTEGER NOT NULL,
        last_uid INTEGER NOT NULL
      );
      -- The last copy of a content gone (its mailbox deleted), the bytes go too.
      CREATE FUNCTION mailbox_messages_release() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM mailbox_messages WHERE content_id = OLD.content_id) THEN
          DELETE FROM message_contents WHERE id = OLD.content_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER mailbox_messages_release AFTER DELETE ON mailbox_messages
        FOR EACH ROW EXECUTE FUNCTION mailbox_messages_release();`,
  },
  {
    // Two transactions deleting the last two copies at once (two mailboxes removed together)
    // each saw the other's copy under read committed, and neither released the bytes. Locking the
    // content row first makes the second wait for the first's commit; its next statement then
    // sees that copy gone. (PostgreSQL only: SQLite has one writer.) Version 43, after SQLite's 41
    // and 42, so the block's numbers keep meaning one change each.
    version: 43,
    name: "received mail: release a content under its row lock",
    sql: `
      CREATE OR REPLACE FUNCTION mailbox_messages_release() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM message_contents WHERE id = OLD.content_id FOR UPDATE;
        IF NOT EXISTS (SELECT 1 FROM mailbox_messages WHERE content_id = OLD.content_id) THEN
          DELETE FROM message_contents WHERE id = OLD.content_id;
        END IF;
        RETURN NULL;
      END $$;`,
  },
  {
    // Its From domain failed DMARC with policy quarantine (decision I3); as SQLite's 44.
    version: 44,
    name: "received mail: DMARC quarantine mark",
    sql: "ALTER TABLE mailbox_messages ADD COLUMN quarantined BOOLEAN NOT NULL DEFAULT false;",
  },
];
