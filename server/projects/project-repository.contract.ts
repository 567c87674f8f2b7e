// The behaviour every ProjectRepository has, on either backend (server/test/backends.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { ProjectRepository } from "./project-repository.ts";

export function describeProjectRepository(backend: BackendName, make: (c: Connection) => ProjectRepository): void {
  describe(`project repository on ${backend}`, () => {
    const store = useStore(backend);
    let repo: ProjectRepository;
    beforeAll(() => {
      repo = make(store.main);
    });

    it("creates a project with the default policy and reads it back", async () => {
      const p = await repo.create("Acme");
      expect(p).toMatchObject({ name: "Acme", dlpMode: "off", dlpOcr: false, dlpTypes: null });
      expect(p.id).toMatch(/^prj_[0-9a-z]{12}$/);
      expect(new Date(p.createdAt).toISOString()).toBe(p.createdAt);
      expect(await repo.get(p.id)).toEqual(p);
    });

    it("an unknown id is undefined, and its policy cannot be set", async () => {
      expect(await repo.get("prj_missing")).toBeUndefined();
      expect(await repo.setDlpPolicy("prj_missing", "block", true)).toBe(false);
      expect(await repo.setDlpTypes("prj_missing", ["card"])).toBe(false);
    });

    it("lists every project in creation order (ties by id)", async () => {
      const a = await repo.create("first");
      const b = await repo.create("second");
      const list = await repo.list();
      expect(list.map((p) => p.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      const keys = list.map((p) => [p.createdAt, p.id].join(" "));
      expect(keys).toEqual([...keys].sort());
    });

    it("sets the DLP policy and types, and null types means every type", async () => {
      const p = await repo.create("policy");
      expect(await repo.setDlpPolicy(p.id, "block", true)).toBe(true);
      expect(await repo.setDlpTypes(p.id, ["card", "iban"])).toBe(true);
      expect(await repo.get(p.id)).toMatchObject({ dlpMode: "block", dlpOcr: true, dlpTypes: ["card", "iban"] });
      expect(await repo.setDlpTypes(p.id, null)).toBe(true);
      expect(await repo.setDlpPolicy(p.id, "warn", false)).toBe(true);
      expect(await repo.get(p.id)).toMatchObject({ dlpMode: "warn", dlpOcr: false, dlpTypes: null });
    });

    it("a project created on one connection is seen on another", async () => {
      const other = make(await store.connect());
      const p = await repo.create("shared");
      expect(await other.get(p.id)).toEqual(p);
    });
  });
}
