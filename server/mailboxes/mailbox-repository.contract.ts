// The behaviour every MailboxRepository has, on either backend (server/test/backends.ts), and the
// cached list in front of it: a write through another connection (another process on SQLite,
// another instance on PostgreSQL) reaches the cached list.
import { beforeAll, describe, expect, it } from "vitest";
import { CapReachedError } from "../db/capped-insert.ts";
import { changeSeen, newMailDomainRow, newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { MailboxKind, MailboxRepository } from "./mailbox-repository.ts";

export interface MailboxRepositoryFactories {
  make: (c: Connection) => MailboxRepository;
  makeCached: (c: Connection) => Promise<MailboxRepository>;
  channel: string;
}

export function describeMailboxRepository(backend: BackendName, f: MailboxRepositoryFactories): void {
  describe(`mailbox repository on ${backend}`, () => {
    const store = useStore(backend);
    let repo: MailboxRepository;
    let projectId: string;
    let otherProject: string;
    let domainId: string;
    let n = 0;
    const domain = "mbx.test";
    const add = (kind: MailboxKind = "mailbox", name = `u${++n}`, cap?: number, project = projectId) =>
      repo.create({ projectId: project, domainId, kind, email: `${name}@${domain}`, passwordHash: kind === "mailbox" ? "scrypt$x" : null, description: null }, cap);
    beforeAll(async () => {
      repo = f.make(store.main);
      projectId = await newProject(store.main);
      otherProject = await newProject(store.main, "other");
      domainId = await newMailDomainRow(store.main, projectId, domain);
    });

    it("creates a mailbox and a group and reads them back by id and address, within the project only", async () => {
      const m = (await add("mailbox", "alice"))!;
      expect(m).toMatchObject({ projectId, domainId, kind: "mailbox", email: `alice@${domain}`, description: null, shared: false, usedBytes: 0, membersCount: 0 });
      expect(m.id).toMatch(/^mbx_/);
      const g = (await add("group", "team"))!;
      expect(g.id).toMatch(/^grp_/);
      expect(await repo.get(projectId, m.id, "mailbox")).toEqual(m);
      expect(await repo.get(projectId, m.id, "group")).toBeUndefined();
      expect(await repo.get(otherProject, m.id, "mailbox")).toBeUndefined();
      expect(await repo.findByEmail(projectId, `ALICE@${domain}`, "mailbox")).toEqual(m);
      expect(await repo.findByEmail(otherProject, `alice@${domain}`, "mailbox")).toBeUndefined();
      expect(await repo.findByEmail(projectId, `team@${domain}`, "group")).toEqual(g);
    });

    it("an address is taken by a mailbox or a group of any project", async () => {
      expect(await add("mailbox", "dup")).toBeDefined();
      expect(await add("group", "dup")).toBeUndefined();
      expect(await add("mailbox", "dup", undefined, otherProject)).toBeUndefined();
    });

    it("lists by address, all kinds or one", async () => {
      const list = await repo.list(projectId);
      expect(list.map((m) => m.email)).toEqual([...list.map((m) => m.email)].sort());
      expect((await repo.list(projectId, "group")).every((m) => m.kind === "group")).toBe(true);
      expect(await repo.list(otherProject)).toEqual([]);
    });

    it("shares a mailbox (not a group) and deletes within the project only", async () => {
      const m = (await add())!;
      const g = (await add("group"))!;
      expect(await repo.setShared(projectId, m.id, true)).toBe(true);
      expect((await repo.get(projectId, m.id, "mailbox"))?.shared).toBe(true);
      expect(await repo.setShared(projectId, g.id, true)).toBe(false);
      expect(await repo.setShared(otherProject, m.id, false)).toBe(false);
      expect(await repo.delete(otherProject, m.id, "mailbox")).toBe(false);
      expect(await repo.delete(projectId, m.id, "group")).toBe(false);
      expect(await repo.delete(projectId, m.id, "mailbox")).toBe(true);
      expect(await repo.delete(projectId, m.id, "mailbox")).toBe(false);
    });

    it("group members: added once, counted, capped, removed, and gone with the mailbox", async () => {
      const g = (await add("group"))!;
      const [a, b, c] = [(await add())!, (await add())!, (await add())!];
      expect(await repo.addMember(g.id, a.id, 2)).toBe(true);
      expect(await repo.addMember(g.id, a.id, 2)).toBe(false);
      expect(await repo.addMember(g.id, b.id, 2)).toBe(true);
      await expect(repo.addMember(g.id, c.id, 2)).rejects.toBeInstanceOf(CapReachedError);
      expect((await repo.get(projectId, g.id, "group"))?.membersCount).toBe(2);
      expect((await repo.listMembers(g.id)).map((m) => m.id).sort()).toEqual([a.id, b.id].sort());
      expect(await repo.removeMember(g.id, a.id)).toBe(true);
      expect(await repo.removeMember(g.id, a.id)).toBe(false);
      expect(await repo.delete(projectId, b.id, "mailbox")).toBe(true);
      expect(await repo.listMembers(g.id)).toEqual([]);
    });

    it("a cap holds under concurrent creates from two connections", async () => {
      const project = await newProject(store.main, "capped");
      const d = await newMailDomainRow(store.main, project, "cap.test");
      const other = f.make(await store.connect());
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 ? repo : other).create({ projectId: project, domainId: d, kind: "mailbox", email: `c${i}@cap.test`, passwordHash: null, description: null }, 12),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(12);
      expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof CapReachedError)).toBe(true);
      expect(await repo.list(project)).toHaveLength(12);
    });
  });

  describe(`cached mailbox repository on ${backend}`, () => {
    const store = useStore(backend);
    let projectId: string;
    let domainId: string;
    beforeAll(async () => {
      projectId = await newProject(store.main);
      domainId = await newMailDomainRow(store.main, projectId, "cache.test");
    });

    it("follows its own writes, and a write through another connection", async () => {
      const cached = await f.makeCached(store.main);
      expect(await cached.list(projectId)).toEqual([]);
      const m = (await cached.create({ projectId, domainId, kind: "mailbox", email: "bob@cache.test", passwordHash: null, description: null }))!;
      expect((await cached.list(projectId)).map((x) => x.email)).toEqual(["bob@cache.test"]);
      const seen = await changeSeen(store.main, f.channel);
      expect(await f.make(await store.connect()).setShared(projectId, m.id, true)).toBe(true);
      await seen();
      expect((await cached.list(projectId))[0].shared).toBe(true);
    });
  });
}
