// The storage boundary of the certificates area, on either store (decision P1): reads are
// promises; the job outcomes' writes take the worker's Tx (synchronous on SQLite, awaited on
// PostgreSQL), so a certificate's new state commits with its job's removal; an order is stored
// together with its issuance job, enqueued on the order's Tx.
import type { Tx } from "../db/tx.ts";
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
   * Stores a pending order and runs `alsoInTransaction` (enqueueing its job) on the same
   * transaction; undefined when the project already holds `cap` certificates.
   */
  createPending(order: NewOrder, cap: number, alsoInTransaction: (tx: Tx, cert: Certificate) => void | Promise<void>): Promise<Certificate | undefined>;
  get(projectId: string, id: string): Promise<Certificate | undefined>;
  /** For background work, which acts on behalf of no request. */
  getById(id: string): Promise<Certificate | undefined>;
  markActive(tx: Tx, id: string, issued: IssuedCertificate): void | Promise<void>;
  markFailed(tx: Tx, id: string, reason: string): void | Promise<void>;
  /** Swaps in a renewed certificate and key. */
  replace(tx: Tx, id: string, issued: IssuedCertificate): void | Promise<void>;
  recordRenewalFailure(tx: Tx, id: string, reason: string): void | Promise<void>;

  /** The local CA (one per server), or undefined before the first start created it. */
  getLocalCa(): Promise<{ certPem: string; keySealed: string } | undefined>;
  /** Stores the CA unless another process did first; returns the one stored. */
  saveLocalCa(certPem: string, keySealed: string): Promise<{ certPem: string; keySealed: string }>;

  getAcmeAccount(directoryUrl: string): Promise<{ keySealed: string; accountUrl: string | null } | undefined>;
  saveAcmeAccount(directoryUrl: string, keySealed: string, accountUrl: string | null): Promise<void>;

  trackChallengeRecord(certificateId: string, zone: string, recordId: string): Promise<void>;
  untrackChallengeRecord(zone: string, recordId: string): Promise<void>;
  challengeRecords(certificateId: string): Promise<{ zone: string; recordId: string }[]>;
}
