// Schema of the certificates area. A certificate row is the order and, once issued, the
// certificate itself: a renewal replaces `fullchain`, `key_sealed` and the dates in one write,
// so the row always holds one consistent certificate and key.
import type { Migration } from "../db/migration.ts";

export const certificateMigrations: Migration[] = [
  {
    version: 112,
    name: "certificates, local CA, ACME accounts and challenge records (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE certificates (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        subject TEXT NOT NULL,
        sans TEXT NOT NULL,
        issuer TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'failed')),
        reason TEXT,
        auto_renew BOOLEAN NOT NULL,
        -- The caller's own CSR (PEM); the key then stays with the caller and key_sealed is null.
        own_csr TEXT,
        key_sealed TEXT,
        fullchain TEXT,
        not_before BIGINT,
        not_after BIGINT,
        renewal_error TEXT,
        renewed_at BIGINT,
        created_at TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX certificates_project ON certificates (project_id);
      -- One row: the local CA of every instance, created at the first start (by the first instance
      -- to start), its key sealed with the server key.
      CREATE TABLE local_ca (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        cert_pem TEXT NOT NULL,
        key_sealed TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE acme_accounts (
        directory_url TEXT PRIMARY KEY,
        key_sealed TEXT NOT NULL,
        account_url TEXT,
        created_at TEXT NOT NULL
      );
      -- _acme-challenge TXT records published for an order, so a run interrupted by a crash
      -- can remove what it left behind.
      CREATE TABLE acme_challenge_records (
        certificate_id TEXT NOT NULL,
        zone TEXT NOT NULL,
        record_id TEXT NOT NULL,
        PRIMARY KEY (zone, record_id)
      );
      CREATE INDEX acme_challenge_records_cert ON acme_challenge_records (certificate_id);`,
  },
];
