// Certificates on PostgreSQL (decision P1): sqlite-certificate-repository.ts's behaviour, checked
// by the shared suite in certificate-repository.contract.ts. The writes of an issuance or renewal
// job's outcome take the worker's transaction client `c`, and an order commits with its job
// (`alsoInTransaction` gets the order's client). The cap is counted under the project's
// certificates lock (db/postgres/capped-insert.ts), so orders on two instances cannot pass it; of
// two instances creating the local CA at their first start, the first insert wins for both.
import { CapReachedError } from "../db/capped-insert.ts";
import { insertWithinCap } from "../db/postgres/capped-insert.ts";
import { rows, type Pg, type Queryable } from "../db/postgres/pg.ts";
import { newId, nowIso } from "../ids.ts";
import type { Clock } from "../jobs/clock.ts";
import type { Tx } from "../db/tx.ts";
import type { Certificate, CertificateRepository, CertificateStatus, IssuedCertificate, IssuerName, NewOrder } from "./certificate-repository.ts";

interface Row {
  id: string;
  project_id: string;
  subject: string;
  sans: string;
  issuer: string;
  status: string;
  reason: string | null;
  auto_renew: boolean;
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
  autoRenew: r.auto_renew,
  ownCsr: r.own_csr,
  keySealed: r.key_sealed,
  fullchain: r.fullchain,
  notBefore: r.not_before,
  notAfter: r.not_after,
  renewalError: r.renewal_error,
  createdAt: r.created_at,
});

export class PgCertificateRepository implements CertificateRepository {
  readonly #db: Pg;
  readonly #clock: Clock;

  constructor(db: Pg, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** A pending order and `alsoInTransaction` (enqueueing its job) in one transaction; undefined past the cap. */
  async createPending(order: NewOrder, cap: number, alsoInTransaction: (tx: Tx, cert: Certificate) => void | Promise<void>): Promise<Certificate | undefined> {
    try {
      return await insertWithinCap(this.#db, `certificates:${order.projectId}`, cap,
        async (c) => (await rows<{ n: number }>(c, "SELECT COUNT(*) AS n FROM certificates WHERE project_id = $1", [order.projectId]))[0].n,
        async (c) => {
          const [row] = await rows<Row>(c,
            `INSERT INTO certificates (id, project_id, subject, sans, issuer, status, auto_renew, own_csr, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9) RETURNING *`,
            [newId("crt"), order.projectId, order.domains[0], JSON.stringify(order.domains), order.issuer, order.autoRenew, order.ownCsr, nowIso(), this.#clock.now()]);
          const cert = toCertificate(row);
          await alsoInTransaction({ kind: "postgres", c }, cert);
          return cert;
        });
    } catch (error) {
      if (error instanceof CapReachedError) return undefined;
      throw error;
    }
  }

  async get(projectId: string, id: string): Promise<Certificate | undefined> {
    const [row] = await this.#db.query<Row>("SELECT * FROM certificates WHERE id = $1 AND project_id = $2", [id, projectId]);
    return row && toCertificate(row);
  }

  /** For background work, which acts on behalf of no request. */
  async getById(id: string): Promise<Certificate | undefined> {
    const [row] = await this.#db.query<Row>("SELECT * FROM certificates WHERE id = $1", [id]);
    return row && toCertificate(row);
  }

  async markActive(tx: Tx, id: string, issued: IssuedCertificate): Promise<void> {
    await this.client(tx).query(
      "UPDATE certificates SET status = 'active', reason = NULL, fullchain = $1, key_sealed = $2, not_before = $3, not_after = $4, updated_at = $5 WHERE id = $6 AND status = 'pending'",
      [issued.fullchain, issued.keySealed, issued.notBefore, issued.notAfter, this.#clock.now(), id]);
  }

  async markFailed(tx: Tx, id: string, reason: string): Promise<void> {
    await this.client(tx).query("UPDATE certificates SET status = 'failed', reason = $1, updated_at = $2 WHERE id = $3 AND status = 'pending'", [reason, this.#clock.now(), id]);
  }

  /** Swaps in a renewed certificate and key. */
  async replace(tx: Tx, id: string, issued: IssuedCertificate): Promise<void> {
    const now = this.#clock.now();
    await this.client(tx).query(
      "UPDATE certificates SET fullchain = $1, key_sealed = $2, not_before = $3, not_after = $4, renewal_error = NULL, renewed_at = $5, updated_at = $5 WHERE id = $6 AND status = 'active'",
      [issued.fullchain, issued.keySealed, issued.notBefore, issued.notAfter, now, id]);
  }

  async recordRenewalFailure(tx: Tx, id: string, reason: string): Promise<void> {
    await this.client(tx).query("UPDATE certificates SET renewal_error = $1, updated_at = $2 WHERE id = $3", [reason, this.#clock.now(), id]);
  }

  async getLocalCa(): Promise<{ certPem: string; keySealed: string } | undefined> {
    const [row] = await this.#db.query<{ cert_pem: string; key_sealed: string }>("SELECT cert_pem, key_sealed FROM local_ca WHERE id = 1");
    return row && { certPem: row.cert_pem, keySealed: row.key_sealed };
  }

  /** Stores the CA unless another instance did first; returns the one stored. */
  async saveLocalCa(certPem: string, keySealed: string): Promise<{ certPem: string; keySealed: string }> {
    await this.#db.query("INSERT INTO local_ca (id, cert_pem, key_sealed, created_at) VALUES (1, $1, $2, $3) ON CONFLICT DO NOTHING", [certPem, keySealed, nowIso()]);
    return (await this.getLocalCa())!;
  }

  async getAcmeAccount(directoryUrl: string): Promise<{ keySealed: string; accountUrl: string | null } | undefined> {
    const [row] = await this.#db.query<{ key_sealed: string; account_url: string | null }>("SELECT key_sealed, account_url FROM acme_accounts WHERE directory_url = $1", [directoryUrl]);
    return row && { keySealed: row.key_sealed, accountUrl: row.account_url };
  }

  async saveAcmeAccount(directoryUrl: string, keySealed: string, accountUrl: string | null): Promise<void> {
    await this.#db.query(
      `INSERT INTO acme_accounts (directory_url, key_sealed, account_url, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (directory_url) DO UPDATE SET key_sealed = excluded.key_sealed, account_url = excluded.account_url`,
      [directoryUrl, keySealed, accountUrl, nowIso()]);
  }

  async trackChallengeRecord(certificateId: string, zone: string, recordId: string): Promise<void> {
    await this.#db.query("INSERT INTO acme_challenge_records (certificate_id, zone, record_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [certificateId, zone, recordId]);
  }

  async untrackChallengeRecord(zone: string, recordId: string): Promise<void> {
    await this.#db.query("DELETE FROM acme_challenge_records WHERE zone = $1 AND record_id = $2", [zone, recordId]);
  }

  async challengeRecords(certificateId: string): Promise<{ zone: string; recordId: string }[]> {
    return (await this.#db.query<{ zone: string; record_id: string }>("SELECT zone, record_id FROM acme_challenge_records WHERE certificate_id = $1", [certificateId]))
      .map((r) => ({ zone: r.zone, recordId: r.record_id }));
  }

  private client(tx: Tx): Queryable {
    if (tx.kind !== "postgres") throw new Error("PgCertificateRepository: a SQLite transaction was passed");
    return tx.c;
  }
}
