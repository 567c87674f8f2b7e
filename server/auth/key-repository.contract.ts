// The behaviour every KeyRepository has, on either backend (server/test/backends.ts), and the
// cache in front of it: a revocation through another connection (the console on SQLite, another
// instance on PostgreSQL) reaches the cached lookups.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { changeSeen, newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { KeyRepository, NewApiKey } from "./key-repository.ts";

export interface KeyRepositoryFactories {
  make: (c: Connection) => KeyRepository;
  /** The cached repository as services.ts wires it on this backend. */
  makeCached: (c: Connection) => Promise<KeyRepository>;
  /** What the cache watches for other writers (PostgreSQL: the NOTIFY channel). */
  channel: string;
}

const newKey = (projectId: string, extra: Partial<NewApiKey> = {}): NewApiKey => ({
  projectId,
  name: "ci",
  hash: randomBytes(32).toString("hex"),
  hint: "platform_sk_ab",
  scopes: ["mail:send", "dns:read"],
  rateLimit: 120,
  dailyQuota: null,
  monthlyQuota: null,
  ...extra,
});

export function describeKeyRepository(backend: BackendName, f: KeyRepositoryFactories): void {
  describe(`key repository on ${backend}`, () => {
    const store = useStore(backend);
    let repo: KeyRepository;
    let projectId: string;
    beforeAll(async () => {
      repo = f.make(store.main);
      projectId = await newProject(store.main);
    });

    it("creates a key, finds it by hash, lists it under its project only", async () => {
      const input = newKey(projectId, { dailyQuota: 5, monthlyQuota: 100 });
      const k = await repo.create(input);
      expect(k).toMatchObject({ projectId, name: "ci", hint: "platform_sk_ab", scopes: ["mail:send", "dns:read"], rateLimit: 120, dailyQuota: 5, monthlyQuota: 100, revokedAt: null });
      expect(k.id).toMatch(/^key_/);
      expect(await repo.findByHash(input.hash)).toEqual(k);
      expect(await repo.findByHash("0".repeat(64))).toBeUndefined();
      const other = await newProject(store.main, "other");
      expect((await repo.list(projectId)).map((x) => x.id)).toContain(k.id);
      expect(await repo.list(other)).toEqual([]);
      expect((await repo.list()).map((x) => x.id)).toContain(k.id);
    });

    it("a hash is unique", async () => {
      const input = newKey(projectId);
      await repo.create(input);
      await expect(repo.create({ ...input, name: "again" })).rejects.toThrow();
    });

    it("revokes once; a revoked key is still found, with revokedAt", async () => {
      const input = newKey(projectId);
      const k = await repo.create(input);
      expect(await repo.revoke(k.id)).toBe(true);
      expect(await repo.revoke(k.id)).toBe(false);
      expect(await repo.revoke("key_missing")).toBe(false);
      expect((await repo.findByHash(input.hash))?.revokedAt).toEqual(expect.any(String));
    });

    it("counts quotas until one is reached, then counts nothing", async () => {
      const k = await repo.create(newKey(projectId));
      const day = { period: "d:2026-11-23", limit: 2 };
      const month = { period: "m:2026-11", limit: 3 };
      expect(await repo.consumeQuota(k.id, [day, month])).toBeNull();
      expect(await repo.consumeQuota(k.id, [day, month])).toBeNull();
      expect(await repo.consumeQuota(k.id, [day, month])).toEqual(day);
      // The refused request counted against neither: one more request fits the month.
      expect(await repo.consumeQuota(k.id, [month])).toBeNull();
      expect(await repo.consumeQuota(k.id, [month])).toEqual(month);
      expect(await repo.consumeQuota(k.id, [])).toBeNull();
    });

    it("never overshoots a quota under concurrency, across two connections", async () => {
      const k = await repo.create(newKey(projectId));
      const other = f.make(await store.connect());
      const counters = [{ period: "d:2026-11-24", limit: 25 }, { period: "m:2026-11", limit: 1000 }];
      const results = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 ? repo : other).consumeQuota(k.id, counters)));
      expect(results.filter((r) => r === null)).toHaveLength(25);
      expect(results.filter((r) => r !== null).every((r) => r!.period === "d:2026-11-24")).toBe(true);
    });
  });

  describe(`cached key repository on ${backend}`, () => {
    const store = useStore(backend);
    let projectId: string;
    beforeAll(async () => {
      projectId = await newProject(store.main);
    });

    it("a revocation through another connection reaches the cached lookup", async () => {
      const cached = await f.makeCached(store.main);
      const input = newKey(projectId);
      const k = await cached.create(input);
      expect((await cached.findByHash(input.hash))?.revokedAt).toBeNull();
      expect((await cached.findByHash(input.hash))?.revokedAt).toBeNull();
      const seen = await changeSeen(store.main, f.channel);
      expect(await f.make(await store.connect()).revoke(k.id)).toBe(true);
      await seen();
      expect((await cached.findByHash(input.hash))?.revokedAt).toEqual(expect.any(String));
    });

    it("its own writes drop the cache at once", async () => {
      const cached = await f.makeCached(store.main);
      const input = newKey(projectId);
      const k = await cached.create(input);
      expect((await cached.findByHash(input.hash))?.revokedAt).toBeNull();
      expect(await cached.revoke(k.id)).toBe(true);
      expect((await cached.findByHash(input.hash))?.revokedAt).toEqual(expect.any(String));
    });
  });
}
