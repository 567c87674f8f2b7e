// The behaviour every DlpRepository has, on either backend (server/test/backends.ts): the policy
// read from the project, and the log written inside the caller's transaction.
import { beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "../db/sql.ts";
import type { ProjectRepository } from "../projects/project-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { DlpFinding } from "./dlp-port.ts";
import type { DlpRepository } from "./dlp-repository.ts";
import { ALL_TYPES, ATTACHMENT_TYPES, OCR_TYPES } from "./policy-types.ts";

export interface DlpStorage {
  repo: DlpRepository;
  /** Runs fn in a transaction of the backend, as the send path does; rolls back when it throws. */
  transaction(fn: (tx: Sql) => Promise<void>): Promise<void>;
}

const finding = (masked: string): DlpFinding => ({ type: "card", masked, where: "text", full: false, mass: false, count: 1 });
const context = { action: "warned" as const, messageId: "msg_1", from: "a@example.test", to: "b@example.org" };

export function describeDlpRepository(backend: BackendName, make: (c: Connection) => DlpStorage): void {
  describe(`dlp repository on ${backend}`, () => {
    const store = useStore(backend);
    let s: DlpStorage;
    let projects: ProjectRepository;
    beforeAll(() => {
      s = make(store.main);
      const c = store.main;
      projects = new SqlProjectRepository(c.store);
    });

    it("reads the project's policy: every type by default, OCR adding the image types", async () => {
      const p = await newProject(store.main);
      expect(await s.repo.policy(p)).toEqual({ mode: "off", types: [...ALL_TYPES], ocr: { enabled: false, engine: "none" }, attachmentTypes: [...ATTACHMENT_TYPES] });
      await projects.setDlpPolicy(p, "block", true);
      await projects.setDlpTypes(p, ["iban", "card"]);
      expect(await s.repo.policy(p)).toEqual({ mode: "block", types: ALL_TYPES.filter((t) => t === "card" || t === "iban"), ocr: { enabled: true, engine: "builtin" }, attachmentTypes: [...ATTACHMENT_TYPES, ...OCR_TYPES] });
      expect(await s.repo.policy("prj_missing")).toBeUndefined();
    });

    it("logs findings within the caller's transaction: newest first, paged, counted, only after `since`", async () => {
      const p = await newProject(store.main);
      await s.transaction(async (tx) => {
        await s.repo.insert(tx, p, "dlp_a", "2026-01-01T00:00:00.000Z", finding("4111 **** 1111"), context);
        await s.repo.insert(tx, p, "dlp_b", "2026-01-01T00:00:01.000Z", finding("5500 **** 0004"), { ...context, action: "blocked", messageId: null });
        await s.repo.insert(tx, p, "dlp_c", "2026-01-01T00:00:01.000Z", finding("3400 **** 0009"), context);
      });
      const all = await s.repo.list(p, { limit: 10, offset: 0 });
      expect(all.total).toBe(3);
      expect(all.events.map((e) => e.id)).toEqual(["dlp_c", "dlp_b", "dlp_a"]);
      expect(all.events[1]).toEqual({ id: "dlp_b", createdAt: "2026-01-01T00:00:01.000Z", action: "blocked", messageId: null, from: "a@example.test", to: "b@example.org", finding: finding("5500 **** 0004") });
      expect(await s.repo.list(p, { limit: 1, offset: 1 })).toMatchObject({ total: 3, events: [{ id: "dlp_b" }] });
      expect(await s.repo.list(p, { limit: 10, offset: 0, since: "2026-01-01T00:00:00.000Z" })).toMatchObject({ total: 2, events: [{ id: "dlp_c" }, { id: "dlp_b" }] });
      expect(await s.repo.list(await newProject(store.main), { limit: 10, offset: 0 })).toEqual({ events: [], total: 0 });
    });

    it("a rolled-back transaction leaves nothing in the log", async () => {
      const p = await newProject(store.main);
      await expect(
        s.transaction(async (tx) => {
          await s.repo.insert(tx, p, "dlp_gone", "2026-01-01T00:00:00.000Z", finding("x"), context);
          throw new Error("the send failed");
        }),
      ).rejects.toThrow("the send failed");
      expect(await s.repo.list(p, { limit: 10, offset: 0 })).toEqual({ events: [], total: 0 });
    });
  });
}
