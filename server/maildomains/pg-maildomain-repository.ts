// Mail domains on PostgreSQL (decision P1); DKIM private keys sealed with the server key at rest.
// Every status change emits its `maildomain.status_changed` in the transaction that writes it.
import type { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";import { insertWithinCap } from "../db/postgres/capped-insert.ts";
import type { Pg, Queryable } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import { newId, nowIso } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { ClaimStatus, MailDomainRecord, MailDomainRepository, NewMailDomain, ProofMethod } from "./maildomain-repository.ts";
import { ENDED_BY_OWNER, type MailDomainRow, toMailDomain } from "./maildomain-rows.ts";
import { STATUS_CHANGED_EVENT, statusChangedData, type StatusChange } from "./status-event.ts";

interface ClaimState {
  id: string;
  project_id: string;
  name: string;
  status: ClaimStatus;
}

export class PgMailDomainRepository implements MailDomainRepository {
  private readonly db: Pg;
  private readonly secrets: SecretBox;
  private readonly events: PgEventOutbox;
  constructor(db: Pg, secrets: SecretBox, events: PgEventOutbox) {
    this.db = db;
    this.secrets = secrets;
    this.events = events;
  }

  /** Inside the transaction of the change: only a status that really moved is an event. */
  private async emitChange(c: Queryable, change: StatusChange): Promise<void> {
    if (change.status !== change.previousStatus) await this.events.emit(c, change.projectId, STATUS_CHANGED_EVENT, statusChangedData(change));
  }

  private toRecord = (r: MailDomainRow): MailDomainRecord => toMailDomain(r, this.secrets);

  private async one(sql: string, params: unknown[]): Promise<MailDomainRecord | undefined> {
    const [row] = await this.db.query<MailDomainRow>(sql, params);
    return row && this.toRecord(row);
  }

  async create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined> {
    const row = await insertWithinCap(this.db, `mail_domains:${d.projectId}`, cap,
      async (c) => (await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM mail_domains WHERE project_id = $1", [d.projectId])).rows[0].n,
      // The UNIQUE (project_id, name) decides two concurrent connects of one project.
      async (c) => (await c.query<MailDomainRow>(
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (project_id, name) DO NOTHING RETURNING *`,
        [newId("dom"), d.projectId, d.name, d.dkimSelector, this.secrets.seal(d.dkimPrivateKey), d.dkimPublicKey, d.verificationToken, nowIso()],
      )).rows[0],
    );
    return row && this.toRecord(row);
  }

  async list(projectId: string): Promise<MailDomainRecord[]> {
    return (await this.db.query<MailDomainRow>("SELECT * FROM mail_domains WHERE project_id = $1 ORDER BY name", [projectId])).map(this.toRecord);
  }

  getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE project_id = $1 AND name = $2", [projectId, name.toLowerCase()]);
  }

  getById(id: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE id = $1", [id]);
  }

  owner(name: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE name = $1 AND status = 'verified'", [name.toLowerCase()]);
  }

  async takeOwnership(id: string, method: ProofMethod, at: string): Promise<boolean> {
    try {
      return await this.db.tx(async (c) => {
        // One name's ownership changes one at a time: without this, two claims proving control
        // at once each waited on the other's row (the unique index, then ending the others).
        const { rows: [claim] } = await c.query<{ name: string }>("SELECT name FROM mail_domains WHERE id = $1", [id]);
        if (!claim) return false;
        await c.query("SELECT pg_advisory_xact_lock(hashtext('mail_domains:' || $1))", [claim.name]);
        // The rows locked before they change: their status before is the event's previousStatus.
        const { rows: [before] } = await c.query<ClaimState>("SELECT id, project_id, name, status FROM mail_domains WHERE id = $1 FOR UPDATE", [id]);
        const taken = await c.query(
          `UPDATE mail_domains d SET status = 'verified', status_reason = NULL, verified_by = $1,
             verified_at = CASE WHEN d.status = 'verified' THEN d.verified_at ELSE $2 END, checked_at = $2
           WHERE d.id = $3 AND d.status <> 'ended'
             AND NOT EXISTS (SELECT 1 FROM mail_domains o WHERE o.name = d.name AND o.status = 'verified' AND o.id <> d.id)`,
          [method, at, id]);
        if (!taken.rowCount) return false;
        await this.emitChange(c, { id, projectId: before.project_id, name: before.name, status: "verified", previousStatus: before.status, verifiedBy: method, statusReason: null, at });
        const { rows: others } = await c.query<ClaimState>(
          "SELECT id, project_id, name, status FROM mail_domains WHERE name = $1 AND id <> $2 AND status IN ('pending', 'lost') ORDER BY id FOR UPDATE",
          [before.name, id]);
        for (const other of others) {
          await c.query("UPDATE mail_domains SET status = 'ended', status_reason = $1, checked_at = $2 WHERE id = $3", [ENDED_BY_OWNER, at, other.id]);
          // Each ended project hears of its own claim only, with the reason its GET shows.
          await this.emitChange(c, { id: other.id, projectId: other.project_id, name: other.name, status: "ended", previousStatus: other.status, verifiedBy: null, statusReason: ENDED_BY_OWNER, at });
        }
        return true;
      });
    } catch (error) {
      // Two claims proving control at once: the unique index of verified names lets one win.
      if ((error as { code?: string }).code === "23505") return false;
      throw error;
    }
  }

  async markUnproven(id: string, status: Exclude<ClaimStatus, "verified">, reason: string, at: string, options: { reopen?: boolean; expected?: ClaimStatus } = {}): Promise<void> {
    await this.db.tx(async (c) => {
      const { rows: [before] } = await c.query<ClaimState>("SELECT id, project_id, name, status FROM mail_domains WHERE id = $1 FOR UPDATE", [id]);
      if (!before || (before.status === "ended" && !options.reopen)) return;
      if (options.expected !== undefined && before.status !== options.expected) return;
      await c.query("UPDATE mail_domains SET status = $1, status_reason = $2, checked_at = $3 WHERE id = $4", [status, reason, at, id]);
      await this.emitChange(c, { id, projectId: before.project_id, name: before.name, status, previousStatus: before.status, verifiedBy: null, statusReason: reason, at });
    });
  }

  async markChecked(id: string, at: string): Promise<void> {
    await this.db.query("UPDATE mail_domains SET checked_at = $1 WHERE id = $2", [at, id]);
  }

  async unscheduled(before: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>("SELECT id FROM mail_domains WHERE status <> 'ended' AND (next_check_at IS NULL OR next_check_at < $1)", [before]);
    return rows.map((r) => r.id);
  }

  async setNextCheck(tx: Tx, id: string, due: number): Promise<void> {
    if (tx.kind !== "postgres") throw new Error("PgMailDomainRepository: a SQLite transaction was passed");
    await tx.c.query("UPDATE mail_domains SET next_check_at = $1 WHERE id = $2", [due, id]);
  }
}
