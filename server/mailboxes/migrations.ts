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
];
