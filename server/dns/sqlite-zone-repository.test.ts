// What only the SQLite repository does; the behaviour both backends share is in
// zone-repository.contract.ts (run by zone-repository.test.ts).
import { DatabaseSync } from "node:sqlite";
import { beforeEach, describe, expect, it } from "vitest";
import { migrateSqliteNow } from "../db/migrate.ts";
import { dnsMigrations } from "./migrations.ts";
import { SqliteDnsRecordRepository } from "./sqlite-zone-repository.ts";

function freshRepository() {
  const db = new DatabaseSync(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  migrateSqliteNow(db, dnsMigrations);
  return { db, repo: new SqliteDnsRecordRepository(db) };
}

const www = { type: "A" as const, name: "www", data: "192.0.2.1", priority: null, ttl: 300 };

describe("SqliteDnsRecordRepository", () => {
  let repo: SqliteDnsRecordRepository;
  let db: DatabaseSync;
  beforeEach(async () => {
    ({ repo, db } = freshRepository());
    await repo.createZone({ name: "Example.Test.", projectId: "p1" });
  });

  it("applies its migrations twice without harm", () => {
    expect(() => migrateSqliteNow(db, dnsMigrations)).not.toThrow();
  });

  it("joins a transaction the caller already holds", async () => {
    db.exec("BEGIN");
    await repo.insertRecord("example.test", www);
    db.exec("ROLLBACK");
    expect(await repo.listZoneRecords("example.test")).toEqual([]);
  });
});
