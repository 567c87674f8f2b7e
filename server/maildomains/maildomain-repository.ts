// The storage boundary of mail domains: one project's claim of a name, its DKIM key pair, its
// verification token and where its proof of ownership stands (decisions O1-O6). Several projects
// may hold claims of one name; at most one claim of a name is `verified` (a unique index).
import type { Backend } from "../db/backend.ts";
import { CapReachedError } from "../db/capped-insert.ts";
import type { Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { ClaimStatus, ProofMethod } from "./claim-status.ts";
import { STATUS_CHANGED_EVENT, statusChangedData, type StatusChange } from "./status-event.ts";

export type { ClaimStatus, ProofMethod };

export interface MailDomainRecord {
  id: string;
  projectId: string;
  name: string;
  dkimSelector: string;
  dkimPrivateKey: string;
  /** Base64 DER (SPKI) of the public key, as it goes into the DKIM TXT record. */
  dkimPublicKey: string;
  verificationToken: string;
  createdAt: string;
  status: ClaimStatus;
  /** Why the claim is not verified (what the last check found); null when verified. */
  statusReason: string | null;
  verifiedBy: ProofMethod | null;
  /** ISO date-times. */
  verifiedAt: string | null;
  checkedAt: string | null;
  /** Epoch ms the periodic check chain is due at; a check job whose `due` differs is stale. */
  nextCheckAt: number | null;
}

export type NewMailDomain = Pick<MailDomainRecord, "projectId" | "name" | "dkimSelector" | "dkimPrivateKey" | "dkimPublicKey" | "verificationToken">;

export interface MailDomainRepository {
  /**
   * Undefined when this project already holds a claim of the name (other projects' claims never
   * block). With `cap`, throws CapReachedError when the project already has that many, checked
   * in the insert's transaction.
   */
  create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined>;
  list(projectId: string): Promise<MailDomainRecord[]>;
  getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined>;
  getById(id: string): Promise<MailDomainRecord | undefined>;
  /** The verified claim of a name, whichever project holds it. */
  owner(name: string): Promise<MailDomainRecord | undefined>;
  /**
   * Makes the claim the name's owner when no other claim of the name is verified, and ends every
   * other open claim of the name (pending or lost), in one transaction. False when another claim
   * is verified (the claim is left as it was). An ended claim is never made the owner. Each claim
   * whose status this moves gets its `maildomain.status_changed` in that transaction (O7).
   */
  takeOwnership(id: string, method: ProofMethod, at: string): Promise<boolean>;
  /**
   * Records a check of a claim that is not (or no longer) the owner: status and why; a status that
   * moved emits `maildomain.status_changed` in the same transaction (O7), the same one does not.
   * An ended claim is left as it is (a check that read it before it ended must not revive it)
   * unless `reopen` (connecting again, O5).
   */
  /**
   * `expected`: write only while the claim still has the status the caller read before its DNS
   * lookup (a check must not undo what a GET or another instance found meanwhile).
   */
  markUnproven(id: string, status: Exclude<ClaimStatus, "verified">, reason: string, at: string, options?: { reopen?: boolean; expected?: ClaimStatus }): Promise<void>;
  /** A check that found the owner's proof still in place. */
  markChecked(id: string, at: string): Promise<void>;
  /** Claims whose periodic check chain is missing or overdue (not ended), for the start-up sweep. */
  unscheduled(before: number): Promise<string[]>;
  /** Sets the chain's next due time, in the transaction that enqueues that check. */
  setNextCheck(tx: Sql, id: string, due: number): Promise<void>;
}

/** The mail_domains row. */
interface MailDomainRow {
  id: string;
  project_id: string;
  name: string;
  dkim_selector: string;
  dkim_private_key_sealed: string;
  dkim_public_key: string;
  verification_token: string;
  created_at: string;
  status: ClaimStatus;
  status_reason: string | null;
  verified_by: ProofMethod | null;
  verified_at: string | null;
  checked_at: string | null;
  next_check_at: number | string | null;
}

/** Why a pending claim ended when another project proved control first (decision O2). */
export const ENDED_BY_OWNER = "another project proved control of this domain first";

const toMailDomain = (r: MailDomainRow, secrets: SecretBox): MailDomainRecord => {
  let dkimPrivateKey: string | undefined;
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    dkimSelector: r.dkim_selector,
    // Sealed at rest (migration 6); callers (DKIM signing) get the PEM. Opened on first read only:
    // every send reads its sender's domain and never the key (the relay signs), and opening it was
    // 7 % of the accept path's CPU.
    get dkimPrivateKey() {
      return (dkimPrivateKey ??= secrets.open(r.dkim_private_key_sealed));
    },
    dkimPublicKey: r.dkim_public_key,
    verificationToken: r.verification_token,
    createdAt: r.created_at,
    status: r.status,
    statusReason: r.status_reason,
    verifiedBy: r.verified_by,
    verifiedAt: r.verified_at,
    checkedAt: r.checked_at,
    nextCheckAt: r.next_check_at === null ? null : Number(r.next_check_at),
  };
};

interface ClaimState {
  id: string;
  project_id: string;
  name: string;
  status: ClaimStatus;
}

/**
 * What else must happen in the transaction that ends a claim (decision O8): the addresses on it
 * are released (MailboxRepository.releaseClaim). A hook, since mailboxes depend on this area.
 */
export type ClaimEndedHook = (tx: Sql, claim: { id: string; projectId: string }, at: string) => Promise<void>;

/**
 * Mail domains on either store; DKIM private keys sealed with the server key at rest. Every status
 * change emits its `maildomain.status_changed` through the backend, in the transaction that writes it;
 * every claim that ends runs `onEnded` in that transaction too.
 */
export class SqlMailDomainRepository implements MailDomainRepository {
  private readonly backend: Backend;
  private readonly db: Sql;
  private readonly secrets: SecretBox;
  private readonly onEnded: ClaimEndedHook;
  constructor(backend: Backend, secrets: SecretBox, onEnded: ClaimEndedHook = async () => {}) {
    this.backend = backend;
    this.db = backend.store;
    this.secrets = secrets;
    this.onEnded = onEnded;
  }

  /**
   * Inside the transaction of the change: only a status that really moved is an event, and a
   * claim that moved to `ended` gives up its addresses there (O8), whatever ended it.
   */
  private async emitChange(tx: Sql, change: StatusChange): Promise<void> {
    if (change.status === change.previousStatus) return;
    await this.backend.emit(tx, change.projectId, STATUS_CHANGED_EVENT, statusChangedData(change));
    if (change.status === "ended") await this.onEnded(tx, { id: change.id, projectId: change.projectId }, change.at);
  }

  private toRecord = (r: MailDomainRow): MailDomainRecord => toMailDomain(r, this.secrets);

  private async one(sql: string, params: string[]): Promise<MailDomainRecord | undefined> {
    const row = await this.db.get<MailDomainRow>(sql, params);
    return row && this.toRecord(row);
  }

  async create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined> {
    const row = await this.db.transaction(async (tx) => {
      if (cap !== undefined) {
        // Count and insert in one transaction, ordered against every other connect of the project (decision L3).
        await tx.lock(`mail_domains:${d.projectId}`);
        const { n } = (await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM mail_domains WHERE project_id = ?", [d.projectId]))!;
        if (Number(n) >= cap) throw new CapReachedError(cap);
      }
      // The UNIQUE (project_id, name) decides two concurrent connects of one project.
      return tx.get<MailDomainRow>(
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING RETURNING *`,
        [newId("dom"), d.projectId, d.name, d.dkimSelector, this.secrets.seal(d.dkimPrivateKey), d.dkimPublicKey, d.verificationToken, nowIso()],
      );
    });
    return row && this.toRecord(row);
  }

  async list(projectId: string): Promise<MailDomainRecord[]> {
    return (await this.db.all<MailDomainRow>("SELECT * FROM mail_domains WHERE project_id = ? ORDER BY name", [projectId])).map(this.toRecord);
  }

  getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE project_id = ? AND name = ?", [projectId, name.toLowerCase()]);
  }

  getById(id: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE id = ?", [id]);
  }

  owner(name: string): Promise<MailDomainRecord | undefined> {
    return this.one("SELECT * FROM mail_domains WHERE name = ? AND status = 'verified'", [name.toLowerCase()]);
  }

  takeOwnership(id: string, method: ProofMethod, at: string): Promise<boolean> {
    const { forUpdate } = this.db.dialect;
    return this.backend.transact(async (tx) => {
      // One name's ownership changes one at a time. Without this lock, two claims of one name
      // proving control at once on PostgreSQL each waited on the other's row (the unique index of
      // verified names, then ending the other claims): a deadlock (git log 098b095). SQLite's
      // write lock orders them already.
      const claim = await tx.get<{ name: string }>("SELECT name FROM mail_domains WHERE id = ?", [id]);
      if (!claim) return false;
      await tx.lock(`mail_domain_name:${claim.name}`);
      // The rows locked before they change: their status before is the event's previousStatus.
      const before = (await tx.get<ClaimState>(`SELECT id, project_id, name, status FROM mail_domains WHERE id = ? ${forUpdate}`, [id]))!;
      const taken = await tx.run(
        `UPDATE mail_domains SET status = 'verified', status_reason = NULL, verified_by = ?,
           verified_at = CASE WHEN status = 'verified' THEN verified_at ELSE ? END, checked_at = ?
         WHERE id = ? AND status <> 'ended'
           AND NOT EXISTS (SELECT 1 FROM mail_domains o WHERE o.name = mail_domains.name AND o.status = 'verified' AND o.id <> mail_domains.id)`,
        [method, at, at, id]);
      if (!taken.changes) return false;
      await this.emitChange(tx, { id, projectId: before.project_id, name: before.name, status: "verified", previousStatus: before.status, verifiedBy: method, statusReason: null, at });
      const others = await tx.all<ClaimState>(
        `SELECT id, project_id, name, status FROM mail_domains WHERE name = ? AND id <> ? AND status IN ('pending', 'lost') ORDER BY id ${forUpdate}`,
        [before.name, id]);
      for (const other of others) {
        await tx.run("UPDATE mail_domains SET status = 'ended', status_reason = ?, checked_at = ? WHERE id = ?", [ENDED_BY_OWNER, at, other.id]);
        // Each ended project hears of its own claim only, with the reason its GET shows.
        await this.emitChange(tx, { id: other.id, projectId: other.project_id, name: other.name, status: "ended", previousStatus: other.status, verifiedBy: null, statusReason: ENDED_BY_OWNER, at });
      }
      return true;
    });
  }

  async markUnproven(id: string, status: Exclude<ClaimStatus, "verified">, reason: string, at: string, options: { reopen?: boolean; expected?: ClaimStatus } = {}): Promise<void> {
    await this.backend.transact(async (tx) => {
      const before = await tx.get<ClaimState>(`SELECT id, project_id, name, status FROM mail_domains WHERE id = ? ${tx.dialect.forUpdate}`, [id]);
      if (!before || (before.status === "ended" && !options.reopen)) return;
      if (options.expected !== undefined && before.status !== options.expected) return;
      await tx.run("UPDATE mail_domains SET status = ?, status_reason = ?, checked_at = ? WHERE id = ?", [status, reason, at, id]);
      await this.emitChange(tx, { id, projectId: before.project_id, name: before.name, status, previousStatus: before.status, verifiedBy: null, statusReason: reason, at });
    });
  }

  async markChecked(id: string, at: string): Promise<void> {
    await this.db.run("UPDATE mail_domains SET checked_at = ? WHERE id = ?", [at, id]);
  }

  async unscheduled(before: number): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>("SELECT id FROM mail_domains WHERE status <> 'ended' AND (next_check_at IS NULL OR next_check_at < ?)", [before]);
    return rows.map((r) => r.id);
  }

  async setNextCheck(tx: Sql, id: string, due: number): Promise<void> {
    await tx.run("UPDATE mail_domains SET next_check_at = ? WHERE id = ?", [due, id]);
  }
}
