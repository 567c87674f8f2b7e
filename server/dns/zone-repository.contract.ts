// The behaviour every DnsRecordRepository has, on either backend (server/test/backends.ts), and
// the wire server's prepared zones following a change made through another connection (the
// console on SQLite, another instance on PostgreSQL).
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CapReachedError } from "../db/capped-insert.ts";
import { changeSeen, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import { startDnsServer } from "./authoritative-server.ts";
import { queryUdp } from "./wire-client.ts";
import type { DnsRecordRepository } from "./zone-repository.ts";

const mx = { type: "MX" as const, name: "@", data: "mx.example.test", priority: 10, ttl: 3600 };
const www = { type: "A" as const, name: "www", data: "192.0.2.1", priority: null, ttl: 300 };
const a = (name: string, data: string) => ({ type: "A" as const, name, data, priority: null, ttl: 60 });

export interface ZoneRepositoryFactories {
  make: (c: Connection) => Promise<DnsRecordRepository>;
  /** What the prepared zones watch for other writers (PostgreSQL: the NOTIFY channel). */
  channel: string;
}

export function describeZoneRepository(backend: BackendName, f: ZoneRepositoryFactories): void {
  describe(`dns zone repository on ${backend}`, () => {
    const store = useStore(backend);
    let repo: DnsRecordRepository;
    // Each test on zones of its own (a suffix), so tests stay independent in one store.
    let n = 0;
    let zone = "";
    beforeAll(async () => {
      repo = await f.make(store.main);
    });
    beforeEach(async () => {
      zone = `example${++n}.test`;
      await repo.createZone({ name: `Example${n}.Test.`, projectId: `p${n}` });
    });

    it("stores zones canonically and binds them to projects", async () => {
      await repo.createZone({ name: `other${n}.test`, registrarRequiresData: true });
      expect(await repo.getZone(zone.toUpperCase())).toMatchObject({ name: zone, projectId: `p${n}`, serial: 1, registrarRequiresData: false });
      expect(await repo.listZones(`p${n}`)).toHaveLength(1);
      expect(await repo.bindZone(`other${n}.test`, `p${n}`)).toBe(true);
      expect((await repo.listZones(`p${n}`)).map((z) => [z.name, z.registrarRequiresData])).toEqual([
        [zone, false],
        [`other${n}.test`, true],
      ]);
      expect(await repo.bindZone("missing.test", `p${n}`)).toBe(false);
      expect((await repo.listZones()).map((z) => z.name)).toEqual(expect.arrayContaining([zone, `other${n}.test`]));
    });

    it("finds the most specific zone for a name", async () => {
      await repo.createZone({ name: `sub.${zone}` });
      expect((await repo.findZoneForName(`a.sub.${zone}`))?.name).toBe(`sub.${zone}`);
      expect((await repo.findZoneForName(`WWW.${zone}.`))?.name).toBe(zone);
      expect(await repo.findZoneForName("example.org")).toBeUndefined();
    });

    it("inserts, finds and deletes records, bumping the serial on each change", async () => {
      const stored = await repo.insertRecord(zone, mx);
      await repo.insertRecord(zone, www);
      expect(stored).toMatchObject({ ...mx, zone, id: expect.any(String) });
      expect((await repo.getZone(zone))?.serial).toBe(3);
      expect(await repo.listZoneRecords(zone)).toHaveLength(2);
      expect(await repo.countZoneRecords(zone)).toBe(2);
      expect(await repo.getRecord(zone, stored.id)).toEqual(stored);
      expect(await repo.findRecords(zone, "WWW")).toMatchObject([www]);
      expect(await repo.findRecords(zone, "www", "TXT")).toEqual([]);
      expect(await repo.deleteRecord(zone, stored.id)).toBe(true);
      expect(await repo.deleteRecord(zone, stored.id)).toBe(false);
      expect(await repo.deleteRecord("other.test", "nope")).toBe(false);
      expect((await repo.getZone(zone))?.serial).toBe(4);
    });

    it("refuses a record for a zone it does not host and leaves nothing behind", async () => {
      await expect(repo.insertRecord("missing.test", www)).rejects.toThrow();
      expect(await sql(store.main, "SELECT id FROM dns_records WHERE zone = 'missing.test'")).toEqual([]);
    });

    it("a write inside the caller's transaction commits and rolls back with it", async () => {
      await expect(store.main.store.transaction(async () => {
        await repo.insertRecord(zone, www);
        expect(await repo.findRecords(zone, "www")).toHaveLength(1);
        throw new Error("the caller fails");
      })).rejects.toThrow("the caller fails");
      expect(await repo.listZoneRecords(zone)).toEqual([]);
      expect((await repo.getZone(zone))?.serial).toBe(1);
      await store.main.store.transaction(async () => void (await repo.insertRecord(zone, www)));
      expect(await repo.listZoneRecords(zone)).toHaveLength(1);
    });

    it("a zone's record cap holds under concurrent inserts from two connections", async () => {
      const other = await f.make(await store.connect());
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? repo : other).insertRecord(zone, a(`h${i}`, "192.0.2.1"), 7)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
      expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof CapReachedError)).toBe(true);
      expect(await repo.countZoneRecords(zone)).toBe(7);
    });
  });

  describe(`prepared dns zones on ${backend}`, () => {
    const store = useStore(backend);

    it("answer this connection's own writes at once, and another connection's once it is seen", async () => {
      const repo = await f.make(store.main);
      await repo.createZone({ name: "cache.test" });
      await repo.insertRecord("cache.test", a("one", "192.0.2.1"));
      const server = await startDnsServer({ host: "127.0.0.1", port: 0, repository: repo });
      try {
        const ask = (name: string) => queryUdp(server.udpPort, { name, type: "A" });
        expect((await ask("one.cache.test")).answers).toHaveLength(1);
        await repo.insertRecord("cache.test", a("own", "192.0.2.3"));
        expect((await ask("own.cache.test")).answers).toMatchObject([{ data: "192.0.2.3" }]);

        const other = await f.make(await store.connect());
        let seen = await changeSeen(store.main, f.channel);
        await other.insertRecord("cache.test", a("two", "192.0.2.2"));
        await seen();
        expect((await ask("two.cache.test")).answers).toMatchObject([{ data: "192.0.2.2" }]);

        expect((await ask("www.other.test")).rcode).toBe("REFUSED");
        seen = await changeSeen(store.main, f.channel);
        await other.createZone({ name: "other.test" });
        await seen();
        expect((await ask("www.other.test")).rcode).toBe("NXDOMAIN");
      } finally {
        await server.close();
      }
    });
  });
}
