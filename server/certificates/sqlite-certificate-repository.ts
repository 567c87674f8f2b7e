// SQLite implementation of CertificateRepository, on the server's one database file. Reads answer
// promises to share the interface with PostgreSQL; the Tx-taking writes stay synchronous.
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";
import { writeOnSqlite, type Tx } from "../db/tx.ts";
import type { Clock } from "../jobs/clock.ts";
import { newId, nowIso } from "../ids.ts";
import type { Certificate, CertificateRepository, CertificateStatus, IssuedCertificate, IssuerName, NewOrder } from "./certificate-repository.ts";

interface Row {
  id: string;
  project_id: string;
  subject: string;
  sans: string;
  issuer: string;
  status: string;
  reason: string | null;
  auto_renew: number;
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
  autoRenew: r.auto_renew === 1,
  ownCsr: r.own_csr,
  keySealed: r.key_sealed,
  fullchain: r.fullchain,
  notBefore: r.not_before,
  notAfter: r.not_after,
  renewalError: r.renewal_error,
  createdAt: r.created_at,
});

export class SqliteCertificateRepository implements CertificateRepository {
  readonly #db: DatabaseSync;
  readonly #clock: Clock;

  constructor(db: DatabaseSync, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async createPending(order: NewOrder, cap: number, alsoInTransaction: (tx: Tx, cert: Certificate) => void | Promise<void>): Promise<Certificate | undefined> {
    // The cap is counted inside the insert's write transaction, so concurrent orders cannot pass it together.
    return transaction(this.#db, () => {
      const { n } = prepare(this.#db, "SELECT COUNT(*) AS n FROM certificates WHERE project_id = ?").get(order.projectId) as { n: number };
      if (n >= cap) return undefined;
      const row = prepare(this.#db,
        `INSERT INTO certificates (id, project_id, subject, sans, issuer, status, auto_renew, own_csr, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) RETURNING *`,
      ).get(newId("crt"), order.projectId, order.domains[0], JSON.stringify(order.domains), order.issuer, order.autoRenew ? 1 : 0, order.ownCsr, nowIso(), this.#clock.now());
      const cert = toCertificate(row as unknown as Row);
      writeOnSqlite((tx) => alsoInTransaction(tx, cert), this.#db);
      return cert;
    });
  }

  async get(projectId: string, id: string): Promise<Certificate | undefined> {
    const row = prepare(this.#db, "SELECT * FROM certificates WHERE id = ? AND project_id = ?").get(id, projectId);
    return row ? toCertificate(row as unknown as Row) : undefined;
  }

  async getById(id: string): Promise<Certificate | undefined> {
    const row = prepare(this.#db, "SELECT * FROM certificates WHERE id = ?").get(id);
    return row ? toCertificate(row as unknown as Row) : undefined;
  }

  markActive(tx: Tx, id: string, issued: IssuedCertificate): void {
    prepare(this.own(tx),
      "UPDATE certificates SET status = 'active', reason = NULL, fullchain = ?, key_sealed = ?, not_before = ?, not_after = ?, updated_at = ? WHERE id = ? AND status = 'pending'",
    ).run(issued.fullchain, issued.keySealed, issued.notBefore, issued.notAfter, this.#clock.now(), id);
  }

  markFailed(tx: Tx, id: string, reason: string): void {
    prepare(this.own(tx), "UPDATE certificates SET status = 'failed', reason = ?, updated_at = ? WHERE id = ? AND status = 'pending'").run(reason, this.#clock.now(), id);
  }

  replace(tx: Tx, id: string, issued: IssuedCertificate): void {
    const now = this.#clock.now();
    prepare(this.own(tx),
      "UPDATE certificates SET fullchain = ?, key_sealed = ?, not_before = ?, not_after = ?, renewal_error = NULL, renewed_at = ?, updated_at = ? WHERE id = ? AND status = 'active'",
    ).run(issued.fullchain, issued.keySealed, issued.notBefore, issued.notAfter, now, now, id);
  }

  recordRenewalFailure(tx: Tx, id: string, reason: string): void {
    prepare(this.own(tx), "UPDATE certificates SET renewal_error = ?, updated_at = ? WHERE id = ?").run(reason, this.#clock.now(), id);
  }

  async getLocalCa(): Promise<{ certPem: string; keySealed: string } | undefined> {
    const row = prepare(this.#db, "SELECT cert_pem, key_sealed FROM local_ca WHERE id = 1").get() as { cert_pem: string; key_sealed: string } | undefined;
    return row ? { certPem: row.cert_pem, keySealed: row.key_sealed } : undefined;
  }

  async saveLocalCa(certPem: string, keySealed: string): Promise<{ certPem: string; keySealed: string }> {
    prepare(this.#db, "INSERT OR IGNORE INTO local_ca (id, cert_pem, key_sealed, created_at) VALUES (1, ?, ?, ?)").run(certPem, keySealed, nowIso());
    return (await this.getLocalCa())!;
  }

  async getAcmeAccount(directoryUrl: string): Promise<{ keySealed: string; accountUrl: string | null } | undefined> {
    const row = prepare(this.#db, "SELECT key_sealed, account_url FROM acme_accounts WHERE directory_url = ?").get(directoryUrl) as
      | { key_sealed: string; account_url: string | null }
      | undefined;
    return row ? { keySealed: row.key_sealed, accountUrl: row.account_url } : undefined;
  }

  async saveAcmeAccount(directoryUrl: string, keySealed: string, accountUrl: string | null): Promise<void> {
    prepare(this.#db,
      `INSERT INTO acme_accounts (directory_url, key_sealed, account_url, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (directory_url) DO UPDATE SET key_sealed = excluded.key_sealed, account_url = excluded.account_url`,
    ).run(directoryUrl, keySealed, accountUrl, nowIso());
  }

  async trackChallengeRecord(certificateId: string, zone: string, recordId: string): Promise<void> {
    prepare(this.#db, "INSERT OR IGNORE INTO acme_challenge_records (certificate_id, zone, record_id) VALUES (?, ?, ?)").run(certificateId, zone, recordId);
  }

  async untrackChallengeRecord(zone: string, recordId: string): Promise<void> {
    prepare(this.#db, "DELETE FROM acme_challenge_records WHERE zone = ? AND record_id = ?").run(zone, recordId);
  }

  async challengeRecords(certificateId: string): Promise<{ zone: string; recordId: string }[]> {
    return (prepare(this.#db, "SELECT zone, record_id FROM acme_challenge_records WHERE certificate_id = ?").all(certificateId) as { zone: string; record_id: string }[])
      .map((r) => ({ zone: r.zone, recordId: r.record_id }));
  }

  /** The Tx of this repository's database; another one is a wiring mistake. */
  private own(tx: Tx): DatabaseSync {
    if (tx.kind !== "sqlite" || tx.db !== this.#db) throw new Error("SqliteCertificateRepository: a transaction of another database was passed");
    return tx.db;
  }
}
