// Schema of mail domains. The DKIM private key is sealed with the server key (issue 17 item 9):
// whoever reads the database file alone must not be able to sign mail as every connected domain;
// the column's name says so, so nothing reads it as a PEM by mistake. A name may be claimed by
// several projects, and one claim per name owns it (issue 28, decision O2).
import type { Migration } from "../db/migration.ts";

export const mailDomainMigrations: Migration[] = [
  {
    version: 103,
    name: "mail domains (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE mail_domains (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        dkim_selector TEXT NOT NULL,
        dkim_private_key_sealed TEXT NOT NULL,
        dkim_public_key TEXT NOT NULL,
        verification_token TEXT NOT NULL,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'lost', 'ended')),
        status_reason TEXT,
        verified_by TEXT CHECK (verified_by IN ('dns', 'hosting')),
        verified_at TEXT,
        checked_at TEXT,
        next_check_at BIGINT,
        CONSTRAINT mail_domains_project_name UNIQUE (project_id, name)
      );
      CREATE UNIQUE INDEX mail_domains_owner ON mail_domains (name) WHERE status = 'verified';
      CREATE INDEX mail_domains_name ON mail_domains (name);`,
    postgres: `CREATE INDEX mail_domains_project ON mail_domains (project_id, name);`,
  },
];
