// Mail domains on the embedded SQLite store; DKIM private keys sealed with the server key at rest.
import type { DatabaseSync } from "node:sqlite";
import { insertWithinCap } from "../db/capped-insert.ts";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";
import type { Tx } from "../db/tx.ts";
import { newId, nowIso } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { ClaimStatus, MailDomainRecord, MailDomainRepository, NewMailDomain, ProofMethod } from "./maildomain-repository.ts";
import { ENDED_BY_OWNER, type MailDomainRow, toMailDomain } from "./maildomain-rows.ts";

export class SqliteMailDomainRepository implements MailDomainRepository {
  private readonly db: DatabaseSync;
  private readonly secrets: SecretBox;
  constructor(db: DatabaseSync, secrets: SecretBox) {
    this.db = db;
    this.secrets = secrets;
  }

  private one(sql: string, ...params: (string | number)[]): MailDomainRecord | undefined {
    const row = prepare(this.db, sql).get(...params);
    return row ? toMailDomain(row as unknown as MailDomainRow, this.secrets) : undefined;
  }

  async create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined> {
    const id = newId("dom");
    const count = () => (prepare(this.db, "SELECT COUNT(*) AS n FROM mail_domains WHERE project_id = ?").get(d.projectId) as { n: number }).n;
    const r = insertWithinCap(this.db, cap, count, () =>
      prepare(this.db,
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING`,
      ).run(id, d.projectId, d.name, d.dkimSelector, this.secrets.seal(d.dkimPrivateKey), d.dkimPublicKey, d.verificationToken, nowIso()),
    );
    if (Number(r.changes) === 0) return undefined;
    return this.getByName(d.projectId, d.name);
  }

  async list(projectId: string): Promise<MailDomainRecord[]> {
    const rows = prepare(this.db, "SELECT * FROM mail_domains WHERE project_id = ? ORDER BY name").all(projectId);
    return (rows as unknown as MailDomainRow[]).map((r) => toMailDomain(r, this.secrets));
  }

  async getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE project_id = ? AND name = ?", projectId, name.toLowerCase());
  }

  async getById(id: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE id = ?", id);
  }

  async owner(name: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE name = ? AND status = 'verified'", name.toLowerCase());
  }

  async takeOwnership(id: string, method: ProofMethod, at: string): Promise<boolean> {
    return transaction(this.db, () => {
      const taken = prepare(this.db,
        `UPDATE mail_domains SET status = 'verified', status_reason = NULL, verified_by = ?, verified_at = CASE WHEN status = 'verified' THEN verified_at ELSE ? END, checked_at = ?
         WHERE id = ? AND status <> 'ended'
           AND NOT EXISTS (SELECT 1 FROM mail_domains o WHERE o.name = mail_domains.name AND o.status = 'verified' AND o.id <> mail_domains.id)`,
      ).run(method, at, at, id);
      if (Number(taken.changes) === 0) return false;
      prepare(this.db,
        `UPDATE mail_domains SET status = 'ended', status_reason = ?, checked_at = ?
         WHERE name = (SELECT name FROM mail_domains WHERE id = ?) AND id <> ? AND status IN ('pending', 'lost')`,
      ).run(ENDED_BY_OWNER, at, id, id);
      return true;
    });
  }

  async markUnproven(id: string, status: Exclude<ClaimStatus, "verified">, reason: string, at: string): Promise<void> {
    prepare(this.db, "UPDATE mail_domains SET status = ?, status_reason = ?, checked_at = ? WHERE id = ?").run(status, reason, at, id);
  }

  async markChecked(id: string, at: string): Promise<void> {
    prepare(this.db, "UPDATE mail_domains SET checked_at = ? WHERE id = ?").run(at, id);
  }

  async unscheduled(before: number): Promise<string[]> {
    const rows = prepare(this.db, "SELECT id FROM mail_domains WHERE status <> 'ended' AND (next_check_at IS NULL OR next_check_at < ?)").all(before);
    return (rows as { id: string }[]).map((r) => r.id);
  }

  setNextCheck(tx: Tx, id: string, due: number): void {
    if (tx.kind !== "sqlite" || tx.db !== this.db) throw new Error("SqliteMailDomainRepository: a transaction of another database was passed");
    prepare(tx.db, "UPDATE mail_domains SET next_check_at = ? WHERE id = ?").run(due, id);
  }
}
