// The wire server keeps prepared zones; these prove no write path leaves it stale on SQLite: the
// repository itself, another repository or notifying SQL on the same connection, and any commit
// by another connection (the console), raw SQL included (data_version; PostgreSQL sees other
// instances' writes through their NOTIFY: zone-repository.contract.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type DnsServer } from "./authoritative-server.ts";
import { migrateSqliteNow } from "../db/migrate.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { dnsMigrations } from "./migrations.ts";
import { queryUdp } from "./wire-client.ts";
import { ZONES_CHANNEL, zoneRepository } from "./zone-repository.ts";

let dir: string;
let serverDb: DatabaseSync;
let consoleDb: DatabaseSync;
let server: DnsServer;
const a = (name: string, data: string) => ({ type: "A" as const, name, data, priority: null, ttl: 60 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dns-cache-"));
  serverDb = new DatabaseSync(join(dir, "platform.db"));
  serverDb.exec("PRAGMA journal_mode = WAL");
  migrateSqliteNow(serverDb, dnsMigrations);
  consoleDb = new DatabaseSync(join(dir, "platform.db"));
  const repository = await zoneRepository(storeOnSqlite(serverDb));
  await repository.createZone({ name: "cache.test" });
  await repository.insertRecord("cache.test", a("one", "192.0.2.1"));
  server = await startDnsServer({ host: "127.0.0.1", port: 0, repository });
});
afterAll(async () => {
  await server.close();
  serverDb.close();
  consoleDb.close();
  rmSync(dir, { recursive: true, force: true });
});

const ask = (name: string) => queryUdp(server.udpPort, { name, type: "A" });

describe("prepared zones stay fresh", () => {
  it("sees a record written by another connection", async () => {
    expect((await ask("one.cache.test")).answers).toHaveLength(1);
    await (await zoneRepository(storeOnSqlite(consoleDb))).insertRecord("cache.test", a("two", "192.0.2.2"));
    expect((await ask("two.cache.test")).answers).toMatchObject([{ data: "192.0.2.2" }]);
  });

  it("sees a zone created by another connection", async () => {
    expect((await ask("www.other.test")).rcode).toBe("REFUSED");
    await (await zoneRepository(storeOnSqlite(consoleDb))).createZone({ name: "other.test" });
    expect((await ask("www.other.test")).rcode).toBe("NXDOMAIN");
  });

  it("sees another repository's write on the server's own connection", async () => {
    await (await zoneRepository(storeOnSqlite(serverDb))).insertRecord("cache.test", a("three", "192.0.2.3"));
    expect((await ask("three.cache.test")).answers).toMatchObject([{ data: "192.0.2.3" }]);
  });

  it("sees SQL on the server's own connection that notifies ZONES_CHANNEL, as every zone writer must", async () => {
    const store = storeOnSqlite(serverDb);
    await store.transaction(async (tx) => {
      await tx.run("UPDATE dns_records SET data = '192.0.2.9' WHERE name = 'one'");
      await tx.notify(ZONES_CHANNEL);
    });
    // The notification is delivered on the turn after the commit, as a listener's always is.
    await new Promise((resolve) => setImmediate(resolve));
    expect((await ask("one.cache.test")).answers).toMatchObject([{ data: "192.0.2.9" }]);
  });

  it("sees a deleted zone disappear", async () => {
    consoleDb.prepare("DELETE FROM zones WHERE name = 'other.test'").run();
    expect((await ask("www.other.test")).rcode).toBe("REFUSED");
  });
});
