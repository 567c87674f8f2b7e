// Schema of mailboxes and groups. They share one address space, so one table keeps addresses
// unique; a group's members are mailboxes of the same table.
import type { Migration } from "../db/migration.ts";

export const mailboxMigrations: Migration[] = [
  {
    version: 104,
    name: "mailboxes and groups (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE mailboxes (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        domain_id TEXT NOT NULL REFERENCES mail_domains (id),
        kind TEXT NOT NULL CHECK (kind IN ('mailbox', 'group')),
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT,
        description TEXT,
        shared BOOLEAN NOT NULL DEFAULT FALSE,
        used_bytes BIGINT NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE INDEX mailboxes_project ON mailboxes (project_id, kind);
      CREATE TABLE group_members (
        group_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (group_id, mailbox_id)
      );`,
    postgres: `CREATE INDEX group_members_mailbox ON group_members (mailbox_id);`,
  },
  // Issue 41 item 3 (decision O8): a mailbox whose domain claim ended is **released**: it keeps its
  // stored mail (readable to its project through the API) but no longer holds its address, so the
  // name's new owner can create it. The address moves to `released_email` and `email` takes the
  // mailbox's own id (no `@`, unique as the primary key): the UNIQUE (email) constraint keeps
  // deciding every held address under concurrency as it always did, and no lookup by address
  // (RCPT TO, delivery, webmail, groups) can reach a released mailbox. A table rebuild to a partial
  // index is not possible in SQLite inside a transaction with foreign keys on (the cascades of
  // messages, members and sessions would fire). Mailboxes and groups of claims that had ended
  // before this version are released here, as the claim's end does from now on.
  {
    version: 204,
    name: "mailboxes of an ended domain claim release their address",
    sql: `
      ALTER TABLE mailboxes ADD COLUMN released_at TEXT;
      ALTER TABLE mailboxes ADD COLUMN released_email TEXT;
      CREATE INDEX mailboxes_domain ON mailboxes (domain_id);
      DELETE FROM mailboxes WHERE kind = 'group' AND domain_id IN (SELECT id FROM mail_domains WHERE status = 'ended');
      DELETE FROM webmail_links WHERE mailbox_id IN (SELECT m.id FROM mailboxes m JOIN mail_domains d ON d.id = m.domain_id WHERE d.status = 'ended');
      DELETE FROM webmail_sessions WHERE mailbox_id IN (SELECT m.id FROM mailboxes m JOIN mail_domains d ON d.id = m.domain_id WHERE d.status = 'ended');
      DELETE FROM group_members WHERE mailbox_id IN (SELECT m.id FROM mailboxes m JOIN mail_domains d ON d.id = m.domain_id WHERE d.status = 'ended');
      UPDATE mailboxes SET released_at = (SELECT COALESCE(d.checked_at, d.created_at) FROM mail_domains d WHERE d.id = mailboxes.domain_id),
        released_email = email, email = id
      WHERE domain_id IN (SELECT id FROM mail_domains WHERE status = 'ended');`,
  },
];
