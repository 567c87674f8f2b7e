// Schema of the certificates area on PostgreSQL (versions 50-59; migrations.ts is SQLite's).
import type { PgMigration } from "../db/postgres/migrations.ts";

export const certificatePgMigrations: PgMigration[] = [
  {
    version: 50,
    name: "certificates, local CA, ACME accounts and challenge records",
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
      -- One row: the local CA of every instance, created by the first to start.
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
      CREATE TABLE acme_challenge_records (
        certificate_id TEXT NOT NULL,
        zone TEXT NOT NULL,
        record_id TEXT NOT NULL,
        PRIMARY KEY (zone, record_id)
      );
      CREATE INDEX acme_challenge_records_cert ON acme_challenge_records (certificate_id);`,
  },
];
