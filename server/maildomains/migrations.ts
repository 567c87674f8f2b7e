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
