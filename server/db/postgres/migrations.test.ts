// The PostgreSQL migration runner: versions recorded once, and instances starting together
// (each migrating) neither fail nor run a migration twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../../../test/support/postgres.ts";
import { pgMigrations, runPgMigrations, openPostgres } from "./migrations.ts";
import { connectPostgres, type Pg } from "./pg.ts";

let cluster: PostgresCluster;
const open: Pg[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await Promise.all(open.map((db) => db.close()));
  await cluster?.stop();
});

describe("postgres migrations", () => {
  it("three instances starting at once migrate once, in order", async () => {
    const url = await cluster.newDatabase();
    const dbs = await Promise.all([1, 2, 3].map(() => connectPostgres(url, { max: 2 })));
    open.push(...dbs);
    const ran = await Promise.all(dbs.map((db) => runPgMigrations(db)));
    const versions = pgMigrations.map((m) => m.version).sort((a, b) => a - b);
    expect(ran.flat().sort((a, b) => a - b)).toEqual(versions);
    const recorded = await dbs[0].query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(recorded.map((r) => r.version)).toEqual(versions);
    expect(await runPgMigrations(dbs[1])).toEqual([]);
  });

  it("a failing migration leaves no trace and names itself", async () => {
    const url = await cluster.newDatabase();
    const db = await openPostgres(url, { max: 2 });
    open.push(db);
    const broken = [{ version: 999, name: "broken", sql: "CREATE TABLE half (x INTEGER); SELECT no_such_function()" }];
    await expect(runPgMigrations(db, broken)).rejects.toThrow("migration 999 (broken) failed");
    expect(await db.query("SELECT 1 FROM schema_migrations WHERE version = 999")).toEqual([]);
    expect(await db.query("SELECT to_regclass('half') AS t")).toEqual([{ t: null }]);
  });
});
