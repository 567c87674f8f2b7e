// Schema changes of the mail-domain area. Version 6 seals DKIM private keys with the server key
// (issue 17 item 9): whoever reads the database file alone must not be able to sign mail as
// every connected domain. The column is renamed so nothing can read it as a PEM by mistake.
import type { DatabaseSync } from "node:sqlite";
import type { Migration } from "../db/migrations.ts";
import { SecretBox } from "../secrets/secret-box.ts";

export const sealDkimPrivateKeys: Migration = {
  version: 6,
  name: "seal DKIM private keys",
  sql: "ALTER TABLE mail_domains RENAME COLUMN dkim_private_key TO dkim_private_key_sealed",
  up(db: DatabaseSync, context) {
    const box = new SecretBox(context.serverKey());
    // Overwrite the freed plaintext instead of leaving it in free pages of the file.
    db.exec("PRAGMA secure_delete = ON");
    const rows = db.prepare("SELECT id, dkim_private_key_sealed AS pem FROM mail_domains").all() as { id: string; pem: string }[];
    const update = db.prepare("UPDATE mail_domains SET dkim_private_key_sealed = ? WHERE id = ?");
    for (const row of rows) if (row.pem.startsWith("-----BEGIN")) update.run(box.seal(row.pem), row.id);
  },
};

// Version 7 (issue 28): a name may be claimed by several projects, and one claim per name owns it
// (decision O2). SQLite cannot drop the old UNIQUE (name), so the table is rebuilt; mailboxes
// reference it by name, and deferring foreign keys to the commit lets the rows come back under
// the same ids first. Domains whose zone the same project hosts here are verified by hosting
// (decision O3); every other claim starts pending and the start-up sweep schedules its check.
const ownershipColumns = `
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'lost', 'ended')),
  status_reason TEXT,
  verified_by TEXT CHECK (verified_by IN ('dns', 'hosting')),
  verified_at TEXT,
  checked_at TEXT,
  next_check_at INTEGER`;

/** A name at or under a zone bound to the claim's own project: the SQL of decision O3. */
export const hostedByOwnProject = (table: string) => `EXISTS (SELECT 1 FROM zones z WHERE z.project_id = ${table}.project_id
  AND (${table}.name = z.name OR ${table}.name LIKE '%.' || z.name))`;

export const mailDomainOwnership: Migration = {
  version: 7,
  name: "mail domain ownership: claims per project, one verified owner per name",
  sql: `
    PRAGMA defer_foreign_keys = ON;
    CREATE TEMP TABLE mail_domains_before AS SELECT * FROM mail_domains;
    DROP TABLE mail_domains;
    CREATE TABLE mail_domains (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      name TEXT NOT NULL,
      dkim_selector TEXT NOT NULL,
      dkim_private_key_sealed TEXT NOT NULL,
      dkim_public_key TEXT NOT NULL,
      verification_token TEXT NOT NULL,
      created_at TEXT NOT NULL,${ownershipColumns},
      UNIQUE (project_id, name)
    );
    CREATE UNIQUE INDEX mail_domains_owner ON mail_domains (name) WHERE status = 'verified';
    CREATE INDEX mail_domains_name ON mail_domains (name);
    INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
      SELECT id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at FROM mail_domains_before;
    DROP TABLE mail_domains_before;
    UPDATE mail_domains SET status = 'verified', verified_by = 'hosting', verified_at = created_at WHERE ${hostedByOwnProject("mail_domains")};`,
};
