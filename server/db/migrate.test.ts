// The one migration runner on both stores: versions recorded once, instances starting together
// (each migrating) neither fail nor run a migration twice, a failing migration leaves no trace and
// names itself, and each store runs its own statements besides the shared ones.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";
import { migrate, migrateSqliteNow } from "./migrate.ts";
import type { Migration } from "./migration.ts";
import { migrations } from "./migrations.ts";
import { migratePostgres, openPostgres } from "./postgres/migrations.ts";
import { connectPostgres, type Pg } from "./postgres/pg.ts";
import { storeOnPostgres } from "./postgres/postgres-store.ts";
import { storeOnSqlite } from "./sqlite-store.ts";

let cluster: PostgresCluster;
const open: Pg[] = [];
const dir = mkdtempSync(path.join(tmpdir(), "migrate-"));
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await Promise.all(open.map((db) => db.close()));
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const versions = migrations.map((m) => m.version).sort((a, b) => a - b);

const broken: Migration[] = [{ version: 999, name: "broken", sql: "CREATE TABLE half (x INTEGER); SELECT no_such_function()" }];

/** Shared statements plus each store's own: the row says which store ran. */
const split: Migration[] = [
  {
    version: 200,
    name: "split",
    sql: "CREATE TABLE t (id SERIAL_KEY, flag BOOLEAN NOT NULL DEFAULT TRUE, n BIGINT, b BYTEA, who TEXT)",
    sqlite: "INSERT INTO t (who) VALUES ('sqlite')",
    postgres: "INSERT INTO t (who) VALUES ('postgres')",
  },
  {
    version: 201,
    name: "data through the store",
    up: async (tx) => void (await tx.run("UPDATE t SET n = ?", [2 ** 40])),
  },
];

describe("the migration list", () => {
  it("has one migration per version, baselines from 100 and later ones from 200", () => {
    expect(new Set(versions).size).toBe(versions.length);
    for (const m of migrations) expect(m.baseline ? m.version >= 100 && m.version < 200 : m.version >= 200).toBe(true);
  });
});

describe("SQLite", () => {
  it("a second connection to the file finds the work done", () => {
    const file = path.join(dir, "two.sqlite");
    const [a, b] = [new DatabaseSync(file), new DatabaseSync(file)];
    b.exec("PRAGMA busy_timeout = 5000");
    expect(migrateSqliteNow(a, migrations)).toEqual(versions);
    expect(migrateSqliteNow(b, migrations)).toEqual([]);
    a.close();
    b.close();
  });

  it("a failing migration leaves no trace and names itself", () => {
    const db = new DatabaseSync(":memory:");
    expect(() => migrateSqliteNow(db, broken)).toThrow("migration 999 (broken) failed");
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('half')").all()).toEqual([]);
    expect(db.prepare("SELECT * FROM schema_migrations").all()).toEqual([]);
  });

  it("runs the shared and its own statements, and data changes through the store", async () => {
    const db = new DatabaseSync(":memory:");
    expect(await migrate(storeOnSqlite(db), split)).toEqual([200, 201]);
    expect(db.prepare("SELECT id, flag, n, who FROM t").all()).toEqual([{ id: 1, flag: 1, n: 2 ** 40, who: "sqlite" }]);
    // Synchronously (openDatabase), a data change is refused with what to do.
    const other = new DatabaseSync(":memory:");
    expect(() => migrateSqliteNow(other, split)).toThrow("migration 201 (data through the store) changes data through the store");
  });
});

describe("PostgreSQL", () => {
  it("three instances starting at once migrate once, in order", async () => {
    const url = await cluster.newDatabase();
    const dbs = await Promise.all([1, 2, 3].map(() => connectPostgres(url, { max: 2 })));
    open.push(...dbs);
    const ran = await Promise.all(dbs.map((db) => migratePostgres(db)));
    expect(ran.flat().sort((a, b) => a - b)).toEqual(versions);
    const recorded = await dbs[0].query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(recorded.map((r) => r.version)).toEqual(versions);
    expect(await migratePostgres(dbs[1])).toEqual([]);
  });

  it("a failing migration leaves no trace and names itself", async () => {
    const db = await openPostgres(await cluster.newDatabase(), { max: 2 });
    open.push(db);
    await expect(migratePostgres(db, broken)).rejects.toThrow("migration 999 (broken) failed");
    expect(await db.query("SELECT 1 FROM schema_migrations WHERE version = 999")).toEqual([]);
    expect(await db.query("SELECT to_regclass('half') AS t")).toEqual([{ t: null }]);
  });

  it("runs the shared and its own statements, and data changes through the store", async () => {
    const db = await connectPostgres(await cluster.newDatabase(), { max: 2 });
    open.push(db);
    expect(await migrate(storeOnPostgres(db), split)).toEqual([200, 201]);
    expect(await db.query("SELECT id, flag, n, who FROM t")).toEqual([{ id: 1, flag: true, n: 2 ** 40, who: "postgres" }]);
  });
});
