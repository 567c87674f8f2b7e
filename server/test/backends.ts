// The two storage backends, for the shared repository suites (`<area>/*-repository.contract.ts`):
// every suite runs once on SQLite and once on PostgreSQL with the same assertions. `useStore`
// gives a suite a fresh, migrated store of its own; `connect()` opens another connection to the
// same data, which is what a second process (SQLite: the console) or a second instance
// (PostgreSQL: another server on the same database) sees.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll } from "vitest";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";
import { openDatabase } from "../db/database.ts";
import { openPostgres } from "../db/postgres/migrations.ts";
import type { Pg } from "../db/postgres/pg.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import type { Store } from "../db/sql.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";

export const backends = ["sqlite", "postgres"] as const;
export type BackendName = (typeof backends)[number];

/** `store` is the one Store of the connection (db/sql.ts); `db` and `pg` are for store-specific tests. */
export type Connection = { backend: "sqlite"; db: DatabaseSync; store: Store } | { backend: "postgres"; pg: Pg; store: Store };

export interface StoreHandle {
  /** The suite's first connection (valid inside tests and hooks). */
  readonly main: Connection;
  /** Another connection to the same data; closed with the store after the suite. */
  connect(): Promise<Connection>;
}

/** Builds one thing per backend: `byBackend({ sqlite: (db) => ..., postgres: (pg) => ... })`. */
export function byBackend<T>(make: { sqlite: (db: DatabaseSync) => T; postgres: (pg: Pg) => T }): (c: Connection) => T {
  return (c) => (c.backend === "sqlite" ? make.sqlite(c.db) : make.postgres(c.pg));
}

// One cluster per test file, started by the first suite that needs it, stopped after the last.
// Migrated once into a template database; each suite's database is a copy of it.
let cluster: Promise<{ cluster: PostgresCluster; template: string }> | undefined;
let users = 0;

async function startCluster(): Promise<{ cluster: PostgresCluster; template: string }> {
  const c = await startPostgres();
  const url = await c.newDatabase();
  await (await openPostgres(url, { max: 1 })).close();
  return { cluster: c, template: new URL(url).pathname.slice(1) };
}

/** Call inside a describe: a fresh store for that suite, opened before its tests, removed after. */
export function useStore(backend: BackendName): StoreHandle {
  const open: Connection[] = [];
  let main: Connection | undefined;
  let connect: () => Promise<Connection>;
  let cleanup: () => Promise<void> = async () => {};

  beforeAll(async () => {
    if (backend === "sqlite") {
      const dir = mkdtempSync(path.join(tmpdir(), "store-"));
      connect = async () => {
        const db = openDatabase(dir);
        return { backend, db, store: storeOnSqlite(db) };
      };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      users++;
      cluster ??= startCluster();
      const { cluster: c, template } = await cluster;
      const url = await c.newDatabase(template);
      connect = async () => {
        const pg = await openPostgres(url, { max: 4 });
        return { backend, pg, store: storeOnPostgres(pg) };
      };
      cleanup = async () => {
        if (--users === 0 && cluster) {
          const c = cluster;
          cluster = undefined;
          await (await c).cluster.stop();
        }
      };
    }
    main = await handle.connect();
  });

  afterAll(async () => {
    try {
      for (const c of open.splice(0)) {
        if (c.backend === "sqlite") c.db.close();
        else await c.pg.close();
      }
    } finally {
      // Also when closing failed: the cluster must not outlive the file.
      await cleanup();
    }
  });

  const handle: StoreHandle = {
    get main() {
      if (!main) throw new Error("the store opens in beforeAll; use it inside tests and hooks");
      return main;
    },
    async connect() {
      const c = await connect();
      open.push(c);
      return c;
    },
  };
  return handle;
}

/** A new project (most rows belong to one), through the backend's own repository. */
export async function newProject(c: Connection, name = "test"): Promise<string> {
  return (await new SqlProjectRepository(c.store).create(name)).id;
}

/**
 * For cache tests: call before another connection writes, await the answer after the write;
 * from then on `c`'s change watcher has seen it. SQLite: the next turn of the event loop (its
 * data_version is read once per turn). PostgreSQL: the NOTIFY on `channel` has arrived.
 */
export async function changeSeen(c: Connection, channel: string): Promise<() => Promise<void>> {
  if (c.backend === "sqlite") return () => new Promise((resolve) => setImmediate(resolve));
  let arrived!: () => void;
  const seen = new Promise<void>((resolve) => (arrived = resolve));
  const stop = await c.pg.listen(channel, () => arrived());
  return () => seen.finally(stop);
}

/**
 * One statement on either backend, for suites that look at rows directly: `?` placeholders
 * (rewritten to `$n` for PostgreSQL). Flags are 0/1 on SQLite and booleans on PostgreSQL (P5).
 */
export async function sql<R>(c: Connection, text: string, params: unknown[] = []): Promise<R[]> {
  if (c.backend === "sqlite") return c.db.prepare(text).all(...(params as never[])) as R[];
  let i = 0;
  return c.pg.query<R>(text.replace(/\?/g, () => `$${++i}`), params);
}

/**
 * A mail domain row (mailboxes need one), its DKIM fields dummies, for the storage suites below the
 * API. It is stored as the verification left it (`verified` unless said otherwise); tests through
 * the API verify their domains the way users do (server/test/harness.ts).
 */
export async function newMailDomainRow(c: Connection, projectId: string, name: string, status: "pending" | "verified" | "lost" = "verified"): Promise<string> {
  const id = `dom_${name.replace(/[^a-z0-9]/g, "")}`;
  await sql(c,
    `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at, status)
     VALUES (?, ?, ?, 'platform', 'sealed', 'public', 'token', ?, ?)`,
    [id, projectId, name, new Date().toISOString(), status],
  );
  return id;
}
