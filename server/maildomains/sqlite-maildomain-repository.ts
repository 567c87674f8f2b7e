import type { DatabaseSync } from "node:sqlite";
import { insertWithinCap } from "../db/capped-insert.ts";
import { prepare } from "../db/statements.ts";
import { newId, nowIso } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { MailDomainRecord, MailDomainRepository, NewMailDomain } from "./maildomain-repository.ts";

interface Row {
  id: string;
  project_id: string;
  name: string;
  dkim_selector: string;
  dkim_private_key_sealed: string;
  dkim_public_key: string;
  verification_token: string;
  created_at: string;
}

const toRecord = (r: Row, secrets: SecretBox): MailDomainRecord => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  dkimSelector: r.dkim_selector,
  // Sealed at rest (migration 6); callers (DKIM signing) get the PEM.
  dkimPrivateKey: secrets.open(r.dkim_private_key_sealed),
  dkimPublicKey: r.dkim_public_key,
  verificationToken: r.verification_token,
  createdAt: r.created_at,
});

export class SqliteMailDomainRepository implements MailDomainRepository {
  private readonly db: DatabaseSync;
  private readonly secrets: SecretBox;
  constructor(db: DatabaseSync, secrets: SecretBox) {
    this.db = db;
    this.secrets = secrets;
  }

  async create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined> {
    const id = newId("dom");
    const count = () => (prepare(this.db, "SELECT COUNT(*) AS n FROM mail_domains WHERE project_id = ?").get(d.projectId) as { n: number }).n;
    const r = insertWithinCap(this.db, cap, count, () =>
      prepare(this.db,
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
      ).run(id, d.projectId, d.name, d.dkimSelector, this.secrets.seal(d.dkimPrivateKey), d.dkimPublicKey, d.verificationToken, nowIso()),
    );
    if (Number(r.changes) === 0) return undefined;
    return this.getByName(d.projectId, d.name);
  }

  async list(projectId: string): Promise<MailDomainRecord[]> {
    const rows = prepare(this.db, "SELECT * FROM mail_domains WHERE project_id = ? ORDER BY name").all(projectId);
    return (rows as unknown as Row[]).map((r) => toRecord(r, this.secrets));
  }

  async getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM mail_domains WHERE project_id = ? AND name = ?").get(projectId, name.toLowerCase());
    return row ? toRecord(row as unknown as Row, this.secrets) : undefined;
  }
}
