// Mail domains on the embedded SQLite store; DKIM private keys sealed with the server key at rest.
// Every status change emits its `maildomain.status_changed` in the transaction that writes it.
import type { DatabaseSync } from "node:sqlite";
import { insertWithinCapSync as insertWithinCap } from "../db/capped-insert.ts";
import { transaction } from "../db/database.ts";
import type { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { prepare } from "../db/statements.ts";
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

export class SqliteMailDomainRepository implements MailDomainRepository {
  private readonly db: DatabaseSync;
  private readonly secrets: SecretBox;
  private readonly events: EventOutbox;
  constructor(db: DatabaseSync, secrets: SecretBox, events: EventOutbox) {
    this.db = db;
    this.secrets = secrets;
    this.events = events;
  }

  private state(id: string): ClaimState | undefined {
    return prepare(this.db, "SELECT id, project_id, name, status FROM mail_domains WHERE id = ?").get(id) as ClaimState | undefined;
  }

  /** Inside the transaction of the change: only a status that really moved is an event. */
  private emitChange(c: StatusChange): void {
    if (c.status !== c.previousStatus) this.events.emit(c.projectId, STATUS_CHANGED_EVENT, statusChangedData(c));
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
      const before = this.state(id);
      if (!before) return false;
      const taken = prepare(this.db,
        `UPDATE mail_domains SET status = 'verified', status_reason = NULL, verified_by = ?, verified_at = CASE WHEN status = 'verified' THEN verified_at ELSE ? END, checked_at = ?
         WHERE id = ? AND status <> 'ended'
           AND NOT EXISTS (SELECT 1 FROM mail_domains o WHERE o.name = mail_domains.name AND o.status = 'verified' AND o.id <> mail_domains.id)`,
      ).run(method, at, at, id);
      if (Number(taken.changes) === 0) return false;
      this.emitChange({ id, projectId: before.project_id, name: before.name, status: "verified", previousStatus: before.status, verifiedBy: method, statusReason: null, at });
      const others = prepare(this.db, "SELECT id, project_id, name, status FROM mail_domains WHERE name = ? AND id <> ? AND status IN ('pending', 'lost')")
        .all(before.name, id) as unknown as ClaimState[];
      const end = prepare(this.db, "UPDATE mail_domains SET status = 'ended', status_reason = ?, checked_at = ? WHERE id = ?");
      for (const other of others) {
        end.run(ENDED_BY_OWNER, at, other.id);
        // Each ended project hears of its own claim only, with the reason its GET shows.
        this.emitChange({ id: other.id, projectId: other.project_id, name: other.name, status: "ended", previousStatus: other.status, verifiedBy: null, statusReason: ENDED_BY_OWNER, at });
      }
      return true;
    });
  }

  async markUnproven(id: string, status: Exclude<ClaimStatus, "verified">, reason: string, at: string, options: { reopen?: boolean; expected?: ClaimStatus } = {}): Promise<void> {
    transaction(this.db, () => {
      const before = this.state(id);
      if (!before || (before.status === "ended" && !options.reopen)) return;
      if (options.expected !== undefined && before.status !== options.expected) return;
      prepare(this.db, "UPDATE mail_domains SET status = ?, status_reason = ?, checked_at = ? WHERE id = ?").run(status, reason, at, id);
      this.emitChange({ id, projectId: before.project_id, name: before.name, status, previousStatus: before.status, verifiedBy: null, statusReason: reason, at });
    });
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
