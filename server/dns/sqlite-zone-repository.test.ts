import { DatabaseSync } from "node:sqlite";
import { beforeEach, describe, expect, it } from "vitest";
import { SqliteDnsRecordRepository, dnsMigrations } from "./sqlite-zone-repository.ts";

function freshRepository() {
  const db = new DatabaseSync(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec(dnsMigrations);
  return { db, repo: new SqliteDnsRecordRepository(db) };
}

const mx = { type: "MX" as const, name: "@", data: "mx.example.test", priority: 10, ttl: 3600 };
const www = { type: "A" as const, name: "www", data: "192.0.2.1", priority: null, ttl: 300 };

describe("SqliteDnsRecordRepository", () => {
  let repo: SqliteDnsRecordRepository;
  let db: DatabaseSync;
  beforeEach(async () => {
    ({ repo, db } = freshRepository());
    await repo.createZone({ name: "Example.Test.", projectId: "p1" });
  });

  it("applies its migrations twice without harm", () => {
    expect(() => db.exec(dnsMigrations)).not.toThrow();
  });

  it("stores zones canonically and binds them to projects", async () => {
    await repo.createZone({ name: "other.test", registrarRequiresData: true });
    expect(await repo.getZone("EXAMPLE.test")).toMatchObject({ name: "example.test", projectId: "p1", serial: 1 });
    expect(await repo.listZones("p1")).toHaveLength(1);
    expect(await repo.bindZone("other.test", "p1")).toBe(true);
    expect((await repo.listZones("p1")).map((z) => [z.name, z.registrarRequiresData])).toEqual([
      ["example.test", false],
      ["other.test", true],
    ]);
    expect(await repo.bindZone("missing.test", "p1")).toBe(false);
  });

  it("finds the most specific zone for a name", async () => {
    await repo.createZone({ name: "sub.example.test" });
    expect((await repo.findZoneForName("a.sub.example.test"))?.name).toBe("sub.example.test");
    expect((await repo.findZoneForName("WWW.example.test."))?.name).toBe("example.test");
    expect(await repo.findZoneForName("example.org")).toBeUndefined();
  });

  it("inserts, finds and deletes records, bumping the serial on each change", async () => {
    const stored = await repo.insertRecord("example.test", mx);
    await repo.insertRecord("example.test", www);
    expect(stored).toMatchObject({ ...mx, zone: "example.test", id: expect.any(String) });
    expect((await repo.getZone("example.test"))?.serial).toBe(3);
    expect(await repo.listZoneRecords("example.test")).toHaveLength(2);
    expect(await repo.findRecords("example.test", "WWW")).toMatchObject([www]);
    expect(await repo.findRecords("example.test", "www", "TXT")).toEqual([]);
    expect(await repo.deleteRecord("example.test", stored.id)).toBe(true);
    expect(await repo.deleteRecord("example.test", stored.id)).toBe(false);
    expect(await repo.deleteRecord("other.test", "nope")).toBe(false);
    expect((await repo.getZone("example.test"))?.serial).toBe(4);
  });

  it("refuses a record for a zone it does not host and leaves nothing behind", async () => {
    await expect(repo.insertRecord("missing.test", www)).rejects.toThrow();
    expect(db.prepare("SELECT count(*) AS n FROM dns_records").get()).toEqual({ n: 0 });
  });

  it("joins a transaction the caller already holds", async () => {
    db.exec("BEGIN");
    await repo.insertRecord("example.test", www);
    db.exec("ROLLBACK");
    expect(await repo.listZoneRecords("example.test")).toEqual([]);
  });
});
