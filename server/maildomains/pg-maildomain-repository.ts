// Mail domains on PostgreSQL (decision P1); DKIM private keys sealed with the server key at rest.
import { insertWithinCap } from "../db/postgres/capped-insert.ts";
import type { Pg } from "../db/postgres/pg.ts";
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

export class PgMailDomainRepository implements MailDomainRepository {
  private readonly db: Pg;
  private readonly secrets: SecretBox;
  constructor(db: Pg, secrets: SecretBox) {
    this.db = db;
    this.secrets = secrets;
  }

  private toRecord = (r: Row): MailDomainRecord => ({
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    dkimSelector: r.dkim_selector,
    dkimPrivateKey: this.secrets.open(r.dkim_private_key_sealed),
    dkimPublicKey: r.dkim_public_key,
    verificationToken: r.verification_token,
    createdAt: r.created_at,
  });

  async create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined> {
    const row = await insertWithinCap(this.db, `mail_domains:${d.projectId}`, cap,
      async (c) => (await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM mail_domains WHERE project_id = $1", [d.projectId])).rows[0].n,
      // The UNIQUE name decides races between two projects connecting one domain.
      async (c) => (await c.query<Row>(
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (name) DO NOTHING RETURNING *`,
        [newId("dom"), d.projectId, d.name, d.dkimSelector, this.secrets.seal(d.dkimPrivateKey), d.dkimPublicKey, d.verificationToken, nowIso()],
      )).rows[0],
    );
    return row && this.toRecord(row);
  }

  async list(projectId: string): Promise<MailDomainRecord[]> {
    return (await this.db.query<Row>("SELECT * FROM mail_domains WHERE project_id = $1 ORDER BY name", [projectId])).map(this.toRecord);
  }

  async getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined> {
    const [row] = await this.db.query<Row>("SELECT * FROM mail_domains WHERE project_id = $1 AND name = $2", [projectId, name.toLowerCase()]);
    return row && this.toRecord(row);
  }
}
