// The storage boundary of mail domains: one project's claim of a name, its DKIM key pair, its
// verification token and where its proof of ownership stands (decisions O1-O6). Several projects
// may hold claims of one name; at most one claim of a name is `verified` (a unique index).
import type { Tx } from "../db/tx.ts";

/**
 * `pending`: not proven (yet); `verified`: this project owns the name; `lost`: it was verified and
 * its proof is gone; `ended`: another project proved control first, or the name lies in a zone
 * another project hosts here. Only `verified` sends, receives and gets new mailboxes.
 */
export type ClaimStatus = "pending" | "verified" | "lost" | "ended";

/** How a verified claim proved control: its token found in DNS, or its zone hosted here by the project. */
export type ProofMethod = "dns" | "hosting";

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
  setNextCheck(tx: Tx, id: string, due: number): void | Promise<void>;
}
