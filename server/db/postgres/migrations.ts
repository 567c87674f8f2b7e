// Versioned schema migrations for PostgreSQL, the counterpart of db/migrations.ts with the same
// version blocks (1-4 core, 5 and 9 jobs, 6-8 hardening, 10-19 events and webhooks, 20-29 mail sending, 30-39 DLP,
// 40-49 inbound mail, 50-59 certificates, 60-69 messenger). Areas bring their schema in
// `<area>/postgres-migrations.ts`; this list only composes them. The PostgreSQL schema was first
// written when SQLite's was at its current shape, so each area's first PostgreSQL migration
// creates its tables as they are today; from then on both dialects get a new migration for
// every change. Several instances may start at once: the runner holds an advisory lock while it
// migrates, so the others wait and then find the work done.
import type pg from "pg";
import { dnsPgMigrations } from "../../dns/postgres-migrations.ts";
import { eventPgMigrations } from "../../events/postgres-migrations.ts";
import { jobPgMigrations } from "../../jobs/postgres-migrations.ts";
import { mailDomainPgMigrations } from "../../maildomains/postgres-migrations.ts";
import { mailSendingPgMigrations } from "../../mail-sending/postgres-migrations.ts";
import { mailboxMessagePgMigrations } from "../../mailbox-reading/postgres-migrations.ts";
import { dlpPgMigrations } from "../../dlp/postgres-migrations.ts";
import { certificatePgMigrations } from "../../certificates/postgres-migrations.ts";
import { messengerPgMigrations } from "../../messenger/postgres-migrations.ts";
import { connectPostgres, type Pg, type PgOptions } from "./pg.ts";

export interface PgMigration {
  version: number;
  name: string;
  /** One or more statements (no parameters). */
  sql: string;
  /** Data changes SQL alone cannot make; runs after `sql`, in its transaction. */
  up?: (c: pg.PoolClient) => Promise<void>;
}

export const pgMigrations: PgMigration[] = [
  {
    version: 1,
    name: "projects and keys",
    sql: `
      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        dlp_mode TEXT NOT NULL DEFAULT 'off' CHECK (dlp_mode IN ('off', 'warn', 'block')),
        dlp_ocr BOOLEAN NOT NULL DEFAULT false,
        dlp_types TEXT,
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
      CREATE INDEX api_keys_project ON api_keys (project_id, created_at);
      CREATE TABLE key_usage (
        key_id TEXT NOT NULL REFERENCES api_keys (id),
        period TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, period)
      );
      -- The rate limit's windows (decision L1), shared by every instance: one row per key.
      -- UNLOGGED: a hit writes no WAL, so its commit waits for no disk; a crash of the database
      -- server empties the table, which starts every key's window afresh, as a restart of the
      -- single SQLite process does with its in-memory windows.
      CREATE UNLOGGED TABLE rate_windows (
        key TEXT PRIMARY KEY,
        window_start BIGINT NOT NULL,
        count INTEGER NOT NULL
      );`,
  },
  ...dnsPgMigrations,
  {
    version: 3,
    name: "mail domains, mailboxes, groups",
    sql: `
      CREATE TABLE mail_domains (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL UNIQUE,
        dkim_selector TEXT NOT NULL,
        -- Sealed with the server key (SQLite's migration 6), never a PEM at rest.
        dkim_private_key_sealed TEXT NOT NULL,
        dkim_public_key TEXT NOT NULL,
        verification_token TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX mail_domains_project ON mail_domains (project_id, name);
      -- Mailboxes and groups share one address space, so one table keeps addresses unique.
      CREATE TABLE mailboxes (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        domain_id TEXT NOT NULL REFERENCES mail_domains (id),
        kind TEXT NOT NULL CHECK (kind IN ('mailbox', 'group')),
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT,
        description TEXT,
        shared BOOLEAN NOT NULL DEFAULT false,
        used_bytes BIGINT NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE INDEX mailboxes_project ON mailboxes (project_id, kind);
      CREATE TABLE group_members (
        group_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (group_id, mailbox_id)
      );
      CREATE INDEX group_members_mailbox ON group_members (mailbox_id);`,
  },
  {
    version: 4,
    name: "webmail links and sessions",
    sql: `
      CREATE TABLE webmail_links (
        token_hash TEXT PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE TABLE webmail_sessions (
        id_hash TEXT PRIMARY KEY,
        mailbox_id TEXT NOT NULL REFERENCES mailboxes (id) ON DELETE CASCADE,
        expires_at BIGINT NOT NULL
      );`,
  },
  ...jobPgMigrations,
  ...mailDomainPgMigrations,
  ...eventPgMigrations,
  ...mailSendingPgMigrations,
  ...mailboxMessagePgMigrations,
  ...dlpPgMigrations,
  ...certificatePgMigrations,
  ...messengerPgMigrations,
];

// Any constant every instance agrees on ("plat" in ASCII).
const MIGRATION_LOCK = 0x706c6174;

/** Applies the migrations not yet recorded; answers the versions it ran. */
export async function runPgMigrations(db: Pg, list: PgMigration[] = pgMigrations): Promise<number[]> {
  const c = await db.pool.connect();
  try {
    // Session lock: held across the per-migration transactions, released in finally.
    await c.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await c.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    const applied = new Set((await c.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version));
    const ran: number[] = [];
    for (const m of [...list].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      await c.query("BEGIN");
      try {
        await c.query(m.sql);
        await m.up?.(c);
        await c.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [m.version, m.name, new Date().toISOString()]);
        await c.query("COMMIT");
        ran.push(m.version);
      } catch (error) {
        await c.query("ROLLBACK");
        throw new Error(`migration ${m.version} (${m.name}) failed: ${(error as Error).message}`);
      }
    }
    return ran;
  } finally {
    await c.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    c.release();
  }
}

/** Connects and migrates: what the server and the tests open a PostgreSQL database with. */
export async function openPostgres(url: string, options: PgOptions = {}): Promise<Pg> {
  const db = await connectPostgres(url, options);
  try {
    await runPgMigrations(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
