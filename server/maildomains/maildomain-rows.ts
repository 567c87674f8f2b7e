// The mail_domains row as both stores hold it, and its mapping to the domain record.
import type { SecretBox } from "../secrets/secret-box.ts";
import type { ClaimStatus, MailDomainRecord, ProofMethod } from "./maildomain-repository.ts";

export interface MailDomainRow {
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

export const toMailDomain = (r: MailDomainRow, secrets: SecretBox): MailDomainRecord => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  dkimSelector: r.dkim_selector,
  // Sealed at rest (migration 6); callers (DKIM signing) get the PEM.
  dkimPrivateKey: secrets.open(r.dkim_private_key_sealed),
  dkimPublicKey: r.dkim_public_key,
  verificationToken: r.verification_token,
  createdAt: r.created_at,
  status: r.status,
  statusReason: r.status_reason,
  verifiedBy: r.verified_by,
  verifiedAt: r.verified_at,
  checkedAt: r.checked_at,
  // BIGINT arrives from PostgreSQL as a string.
  nextCheckAt: r.next_check_at === null ? null : Number(r.next_check_at),
});
