// Versioned schema migrations. Each runs once, in order, in its own transaction, and its version
// is recorded in schema_migrations; never edit a released migration, append a new one. Areas
// bring their schema (`<area>/migrations.ts`) and this list only composes them. Version blocks
// per area keep parallel work from colliding: 5 and 9 jobs, 6-8 hardening, 10-19 events and webhooks,
// 20-29 mail sending, 30-39 DLP, 40-49 inbound mail, 50-59 certificates, 60-69 messenger.
import type { DatabaseSync } from "node:sqlite";
import { certificateMigrations } from "../certificates/migrations.ts";
import { dlpMigrations } from "../dlp/migrations.ts";
import { dnsMigrations } from "../dns/migrations.ts";
import { eventMigrations } from "../events/migrations.ts";
import { jobGroupIndexMigration, jobMigrations } from "../jobs/migrations.ts";
import { mailDomainOwnership, sealDkimPrivateKeys } from "../maildomains/migrations.ts";
import { mailboxAddressListIndex, mailboxMessageFilterIndex, mailboxMessageMigrations, mailboxMessageQuarantine } from "../mailbox-reading/migrations.ts";
import { mailSendingMigrations } from "../mail-sending/migrations.ts";
import { ATTEMPTS_NAME, ATTEMPTS_VERSION, attemptMigrationsSqlite } from "../mail-sending/attempt-migrations.ts";
import { messengerMigrations } from "../messenger/migrations.ts";
import { webhookDeliveryMigrations } from "../webhooks/migrations.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Data changes SQL alone cannot make (sealing with the server key); runs after `sql`, in its transaction. */
  up?: (db: DatabaseSync, context: MigrationContext) => void;
}

export interface MigrationContext {
  /** The server key (server/secrets/server-key.ts), read only when a migration needs it. */
  serverKey: () => Buffer;
}

const noContext: MigrationContext = {
  serverKey: () => {
    throw new Error("this migration needs the server key; open the database with openDatabase");
  },
};

export const migrations: Migration[] = [
  {
    version: 1,
    name: "projects and keys",
    sql: `
      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        dlp_mode TEXT NOT NULL DEFAULT 'off' CHECK (dlp_mode IN ('off', 'warn', 'block')),
        dlp_ocr INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        hint TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        rate_limit INTEGER NOT NULL,
        daily_quota INTEGER,
        monthly_quota INTEGER,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE key_usage (
        key_id TEXT NOT NULL REFERENCES api_keys (id),
        period TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, period)
      );`,
  },
  { version: 2, name: "dns zones and records", sql: dnsMigrations },
  {
    version: 3,
    name: "mail domains, mailboxes, groups",
    sql: `
      CREATE TABLE mail_domains (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL UNIQUE,
        dkim_selector TEXT NOT NULL,
        dkim_private_key TEXT NOT NULL,
        dkim_public_key TEXT NOT NULL,
        verification_token TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      -- Mailboxes and groups share one address space, so one table keeps addresses unique.
      CREATE TABLE mailboxes (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        domain_id TEXT NOT NULL REFERENCES mail_domains (id),
        kind TEXT NOT NULL CHECK (kind IN ('mailbox', 'group')),
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT,
        description TEXT,
        shared INTEGER NOT NULL DEFAULT 0,
        used_bytes INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE INDEX mailboxes_project ON mailboxes (project_id, kind);
      CREATE TABLE group_members (
        group_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (group_id, mailbox_id)
      );`,
  },
  {
    version: 4,
    name: "webmail links and sessions, webhooks",
    sql: `
      CREATE TABLE webmail_links (
        token_hash TEXT PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      CREATE TABLE webmail_sessions (
        id_hash TEXT PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL
      );
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        secret_enc TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event TEXT NOT NULL,
        status TEXT NOT NULL,
        http_code INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        next_attempt_at TEXT
      );`,
  },
  { version: 5, name: "job queue", sql: jobMigrations },
  sealDkimPrivateKeys,
  mailDomainOwnership,
  { version: 9, name: "job queue: due jobs by group", sql: jobGroupIndexMigration },
  { version: 10, name: "event outbox", sql: eventMigrations },
  { version: 11, name: "webhook delivery schedule", sql: webhookDeliveryMigrations },
  { version: 30, name: "dlp policy types and log", sql: dlpMigrations },
  { version: 40, name: "received mail", sql: mailboxMessageMigrations },
  { version: 20, name: "outgoing mail", sql: mailSendingMigrations },
  { version: ATTEMPTS_VERSION, name: ATTEMPTS_NAME, sql: attemptMigrationsSqlite },
  ...certificateMigrations,
  { version: 41, name: "received mail: covering index of the list filters", sql: mailboxMessageFilterIndex },
  { version: 42, name: "received mail: distinct address lists for the from/to filters, narrow time index", sql: mailboxAddressListIndex },
  { version: 44, name: "received mail: DMARC quarantine mark", sql: mailboxMessageQuarantine },
  ...messengerMigrations,
];

export function runMigrations(db: DatabaseSync, list: Migration[] = migrations, context: MigrationContext = noContext): number[] {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version),
  );
  const ran: number[] = [];
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated between our read and the lock.
      if (db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(m.version)) {
        db.exec("COMMIT");
        continue;
      }
      db.exec(m.sql);
      m.up?.(db, context);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(m.version, m.name, new Date().toISOString());
      db.exec("COMMIT");
      ran.push(m.version);
    } catch (error) {
      db.exec("ROLLBACK");
      throw new Error(`migration ${m.version} (${m.name}) failed: ${(error as Error).message}`);
    }
  }
  return ran;
}
