// The storage boundary of the certificates area. Writes are synchronous, like the job queue's
// enqueue: the job worker records a job's outcome and the handler's `write` in one transaction,
// and an order is stored together with its issuance job.
export type CertificateStatus = "pending" | "active" | "failed";
export type IssuerName = "local" | "acme";

export interface Certificate {
  id: string;
  projectId: string;
  subject: string;
  sans: string[];
  issuer: IssuerName;
  status: CertificateStatus;
  reason: string | null;
  autoRenew: boolean;
  /** The caller's CSR (PEM) when ordered with one; we never see that key. */
  ownCsr: string | null;
  keySealed: string | null;
  fullchain: string | null;
  /** Epoch ms, once active. */
  notBefore: number | null;
  notAfter: number | null;
  /** The last failed renewal's reason, cleared by a successful one; the old certificate stays served. */
  renewalError: string | null;
  createdAt: string;
}

export interface NewOrder {
  projectId: string;
  domains: string[];
  issuer: IssuerName;
  autoRenew: boolean;
  ownCsr: string | null;
}

export interface IssuedCertificate {
  fullchain: string;
  keySealed: string | null;
  notBefore: number;
  notAfter: number;
}

export interface CertificateRepository {
  /**
   * Stores a pending order and runs `alsoInTransaction` (enqueueing its job) in the same
   * transaction; undefined when the project already holds `cap` certificates.
   */
  createPending(order: NewOrder, cap: number, alsoInTransaction: (cert: Certificate) => void): Certificate | undefined;
  get(projectId: string, id: string): Certificate | undefined;
  /** For background work, which acts on behalf of no request. */
  getById(id: string): Certificate | undefined;
  markActive(id: string, issued: IssuedCertificate): void;
  markFailed(id: string, reason: string): void;
  /** Swaps in a renewed certificate and key. */
  replace(id: string, issued: IssuedCertificate): void;
  recordRenewalFailure(id: string, reason: string): void;

  /** The local CA (one per server), or undefined before the first start created it. */
  getLocalCa(): { certPem: string; keySealed: string } | undefined;
  /** Stores the CA unless another process did first; returns the one stored. */
  saveLocalCa(certPem: string, keySealed: string): { certPem: string; keySealed: string };

  getAcmeAccount(directoryUrl: string): { keySealed: string; accountUrl: string | null } | undefined;
  saveAcmeAccount(directoryUrl: string, keySealed: string, accountUrl: string | null): void;

  trackChallengeRecord(certificateId: string, zone: string, recordId: string): void;
  untrackChallengeRecord(zone: string, recordId: string): void;
  challengeRecords(certificateId: string): { zone: string; recordId: string }[];
}
