// The storage boundary of the certificates area, and its one implementation over the store
// (db/sql.ts). The job outcomes' writes take the worker's transaction `tx`, so a certificate's new
// state commits with its job's removal; an order is stored in the caller's transaction, which
// enqueues its issuance job beside it.
import { bool, type Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";
import type { Clock } from "../jobs/clock.ts";

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
   * Stores a pending order in the caller's transaction `tx` (a savepoint of it), where the caller
   * enqueues its job; undefined when the project already holds `cap` certificates.
   */
  createPending(tx: Sql, order: NewOrder, cap: number): Promise<Certificate | undefined>;
  get(projectId: string, id: string): Promise<Certificate | undefined>;
  /** For background work, which acts on behalf of no request. */
  getById(id: string): Promise<Certificate | undefined>;
  markActive(tx: Sql, id: string, issued: IssuedCertificate): Promise<void>;
  markFailed(tx: Sql, id: string, reason: string): Promise<void>;
  /** Swaps in a renewed certificate and key. */
  replace(tx: Sql, id: string, issued: IssuedCertificate): Promise<void>;
  recordRenewalFailure(tx: Sql, id: string, reason: string): Promise<void>;

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

interface Row {
  id: string;
  project_id: string;
  subject: string;
  sans: string;
  issuer: string;
  status: string;
  reason: string | null;
  auto_renew: unknown;
  own_csr: string | null;
  key_sealed: string | null;
  fullchain: string | null;
  not_before: number | null;
  not_after: number | null;
  renewal_error: string | null;
  created_at: string;
}

const toCertificate = (r: Row): Certificate => ({
  id: r.id,
  projectId: r.project_id,
  subject: r.subject,
  sans: JSON.parse(r.sans) as string[],
  issuer: r.issuer as IssuerName,
  status: r.status as CertificateStatus,
  reason: r.reason,
  autoRenew: bool(r.auto_renew),
  ownCsr: r.own_csr,
  keySealed: r.key_sealed,
  fullchain: r.fullchain,
  notBefore: r.not_before,
  notAfter: r.not_after,
  renewalError: r.renewal_error,
  createdAt: r.created_at,
});

/**
 * Certificates on either store. The cap is counted under the project's certificates lock in the
 * insert's transaction, so orders on two connections or instances cannot pass it together; of two
 * instances creating the local CA at their first start, the first insert wins for both.
 */
export class SqlCertificateRepository implements CertificateRepository {
  readonly #db: Sql;
  readonly #clock: Clock;

  constructor(db: Sql, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  createPending(tx: Sql, order: NewOrder, cap: number): Promise<Certificate | undefined> {
    return tx.transaction(async (t) => {
      await t.lock(`certificates:${order.projectId}`);
      const { n } = (await t.get<{ n: number }>("SELECT COUNT(*) AS n FROM certificates WHERE project_id = ?", [order.projectId]))!;
      if (n >= cap) return undefined;
      const row = await t.get<Row>(
        `INSERT INTO certificates (id, project_id, subject, sans, issuer, status, auto_renew, own_csr, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) RETURNING *`,
        [newId("crt"), order.projectId, order.domains[0], JSON.stringify(order.domains), order.issuer, order.autoRenew, order.ownCsr, nowIso(), this.#clock.now()],
      );
      return toCertificate(row!);
    });
  }

  async get(projectId: string, id: string): Promise<Certificate | undefined> {
    const row = await this.#db.get<Row>("SELECT * FROM certificates WHERE id = ? AND project_id = ?", [id, projectId]);
    return row && toCertificate(row);
  }

  async getById(id: string): Promise<Certificate | undefined> {
    const row = await this.#db.get<Row>("SELECT * FROM certificates WHERE id = ?", [id]);
    return row && toCertificate(row);
  }

  async markActive(tx: Sql, id: string, issued: IssuedCertificate): Promise<void> {
    await tx.run(
      "UPDATE certificates SET status = 'active', reason = NULL, fullchain = ?, key_sealed = ?, not_before = ?, not_after = ?, updated_at = ? WHERE id = ? AND status = 'pending'",
      [issued.fullchain, issued.keySealed, issued.notBefore, issued.notAfter, this.#clock.now(), id],
    );
  }

  async markFailed(tx: Sql, id: string, reason: string): Promise<void> {
    await tx.run("UPDATE certificates SET status = 'failed', reason = ?, updated_at = ? WHERE id = ? AND status = 'pending'", [reason, this.#clock.now(), id]);
  }

  async replace(tx: Sql, id: string, issued: IssuedCertificate): Promise<void> {
    const now = this.#clock.now();
    await tx.run(
      "UPDATE certificates SET fullchain = ?, key_sealed = ?, not_before = ?, not_after = ?, renewal_error = NULL, renewed_at = ?, updated_at = ? WHERE id = ? AND status = 'active'",
      [issued.fullchain, issued.keySealed, issued.notBefore, issued.notAfter, now, now, id],
    );
  }

  async recordRenewalFailure(tx: Sql, id: string, reason: string): Promise<void> {
    await tx.run("UPDATE certificates SET renewal_error = ?, updated_at = ? WHERE id = ?", [reason, this.#clock.now(), id]);
  }

  async getLocalCa(): Promise<{ certPem: string; keySealed: string } | undefined> {
    const row = await this.#db.get<{ cert_pem: string; key_sealed: string }>("SELECT cert_pem, key_sealed FROM local_ca WHERE id = 1");
    return row && { certPem: row.cert_pem, keySealed: row.key_sealed };
  }

  async saveLocalCa(certPem: string, keySealed: string): Promise<{ certPem: string; keySealed: string }> {
    await this.#db.run("INSERT INTO local_ca (id, cert_pem, key_sealed, created_at) VALUES (1, ?, ?, ?) ON CONFLICT DO NOTHING", [certPem, keySealed, nowIso()]);
    return (await this.getLocalCa())!;
  }

  async getAcmeAccount(directoryUrl: string): Promise<{ keySealed: string; accountUrl: string | null } | undefined> {
    const row = await this.#db.get<{ key_sealed: string; account_url: string | null }>("SELECT key_sealed, account_url FROM acme_accounts WHERE directory_url = ?", [directoryUrl]);
    return row && { keySealed: row.key_sealed, accountUrl: row.account_url };
  }

  async saveAcmeAccount(directoryUrl: string, keySealed: string, accountUrl: string | null): Promise<void> {
    await this.#db.run(
      `INSERT INTO acme_accounts (directory_url, key_sealed, account_url, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (directory_url) DO UPDATE SET key_sealed = excluded.key_sealed, account_url = excluded.account_url`,
      [directoryUrl, keySealed, accountUrl, nowIso()],
    );
  }

  async trackChallengeRecord(certificateId: string, zone: string, recordId: string): Promise<void> {
    await this.#db.run("INSERT INTO acme_challenge_records (certificate_id, zone, record_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [certificateId, zone, recordId]);
  }

  async untrackChallengeRecord(zone: string, recordId: string): Promise<void> {
    await this.#db.run("DELETE FROM acme_challenge_records WHERE zone = ? AND record_id = ?", [zone, recordId]);
  }

  async challengeRecords(certificateId: string): Promise<{ zone: string; recordId: string }[]> {
    return (await this.#db.all<{ zone: string; record_id: string }>("SELECT zone, record_id FROM acme_challenge_records WHERE certificate_id = ?", [certificateId]))
      .map((r) => ({ zone: r.zone, recordId: r.record_id }));
  }
}
