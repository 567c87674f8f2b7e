// Schema changes of the mail-domain area on PostgreSQL, beside migrations.ts (same versions).
import type { PgMigration } from "../db/postgres/migrations.ts";
import { hostedByOwnProject } from "./migrations.ts";

export const mailDomainPgMigrations: PgMigration[] = [
  {
    // Version 7 (issue 28, decision O2): claims per project, one verified owner per name.
    version: 7,
    name: "mail domain ownership: claims per project, one verified owner per name",
    sql: `
      ALTER TABLE mail_domains DROP CONSTRAINT mail_domains_name_key;
      ALTER TABLE mail_domains ADD CONSTRAINT mail_domains_project_name UNIQUE (project_id, name);
      ALTER TABLE mail_domains
        ADD COLUMN status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'lost', 'ended')),
        ADD COLUMN status_reason TEXT,
        ADD COLUMN verified_by TEXT CHECK (verified_by IN ('dns', 'hosting')),
        ADD COLUMN verified_at TEXT,
        ADD COLUMN checked_at TEXT,
        ADD COLUMN next_check_at BIGINT;
      CREATE UNIQUE INDEX mail_domains_owner ON mail_domains (name) WHERE status = 'verified';
      CREATE INDEX mail_domains_name ON mail_domains (name);
      UPDATE mail_domains SET status = 'verified', verified_by = 'hosting', verified_at = created_at WHERE ${hostedByOwnProject("mail_domains")};`,
  },
];
