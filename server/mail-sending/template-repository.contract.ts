// The behaviour every TemplateRepository has, on either backend (server/test/backends.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { TemplateRepository } from "./template-repository.ts";

export function describeTemplateRepository(backend: BackendName, make: (c: Connection) => TemplateRepository): void {
  describe(`template repository on ${backend}`, () => {
    const store = useStore(backend);
    let repo: TemplateRepository;
    beforeAll(() => {
      repo = make(store.main);
    });

    it("creates version 1 as current; a name is unique per project only", async () => {
      const p = await newProject(store.main);
      const q = await newProject(store.main);
      const v = await repo.create(p, "welcome", { subject: "Hi {{name}}", text: "Hello" });
      expect(v).toEqual({ templateId: expect.stringMatching(/^tpl_/), version: 1, subject: "Hi {{name}}", text: "Hello", html: undefined, createdAt: expect.any(String) });
      expect(await repo.create(p, "welcome", { subject: "again" })).toBeUndefined();
      expect(await repo.create(q, "welcome", { subject: "other project" })).toBeDefined();
      expect(await repo.get(v!.templateId)).toEqual({ id: v!.templateId, projectId: p, name: "welcome", currentVersion: 1, versions: 1, createdAt: expect.any(String) });
    });

    it("adds versions that become current, rolls back to an existing one only", async () => {
      const p = await newProject(store.main);
      const v1 = (await repo.create(p, "t", { subject: "one", html: "<p>1</p>" }))!;
      const v2 = (await repo.addVersion(v1.templateId, { subject: "two" }))!;
      expect(v2).toMatchObject({ version: 2, subject: "two", html: undefined });
      expect(await repo.resolve(p, v1.templateId)).toMatchObject({ version: 2, subject: "two" });
      expect(await repo.resolve(p, v1.templateId, 1)).toMatchObject({ version: 1, subject: "one", html: "<p>1</p>" });
      expect(await repo.rollback(v1.templateId, 1)).toMatchObject({ currentVersion: 1, versions: 2 });
      expect(await repo.resolve(p, v1.templateId)).toMatchObject({ version: 1 });
      expect(await repo.rollback(v1.templateId, 3)).toBeUndefined();
      expect(await repo.rollback(v1.templateId, 2 ** 40)).toBeUndefined();
      expect(await repo.rollback("tpl_missing", 1)).toBeUndefined();
      expect(await repo.addVersion("tpl_missing", { subject: "x" })).toBeUndefined();
      expect(await repo.resolve(p, v1.templateId, 9)).toBeUndefined();
      expect(await repo.resolve(p, v1.templateId, 2 ** 40)).toBeUndefined();
    });

    it("resolves only within the template's project", async () => {
      const p = await newProject(store.main);
      const q = await newProject(store.main);
      const v = (await repo.create(p, "private", { subject: "s" }))!;
      expect(await repo.resolve(q, v.templateId)).toBeUndefined();
      expect(await repo.resolve(q, v.templateId, 1)).toBeUndefined();
    });

    it("lists a project's templates by name, or every project's", async () => {
      const p = await newProject(store.main);
      for (const name of ["b", "a", "C"]) await repo.create(p, name, { subject: name });
      expect((await repo.list(p)).map((t) => t.name)).toEqual(["C", "a", "b"]);
      const all = await repo.list();
      expect(all.filter((t) => t.projectId === p).map((t) => t.name)).toEqual(["C", "a", "b"]);
      const keys = all.map((t) => `${t.projectId} ${t.name}`);
      expect(keys).toEqual([...keys].sort());
    });

    it("versions added at once on two connections are numbered apart", async () => {
      const p = await newProject(store.main);
      const other = make(await store.connect());
      const v = (await repo.create(p, "busy", { subject: "0" }))!;
      const added = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other : repo).addVersion(v.templateId, { subject: String(i) })));
      expect(added.map((a) => a!.version).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      expect(await repo.get(v.templateId)).toMatchObject({ versions: 9 });
    });
  });
}
