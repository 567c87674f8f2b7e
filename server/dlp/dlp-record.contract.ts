// The inspector's `record` on either backend (server/test/backends.ts): the DLP log rows and one
// `mail.dlp` event per finding are written on the caller's transaction, so they commit with it,
// roll back with it, and a failure part-way leaves none of them even when the caller goes on.
import { describe, expect, it } from "vitest";
import type { Backend } from "../db/backend.ts";
import { newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { DlpFinding, DlpInspector } from "./dlp-port.ts";
import type { DlpRepository } from "./dlp-repository.ts";

export interface DlpRecordSetup {
  backend: Backend;
  repository: DlpRepository;
  inspector: DlpInspector;
}

const finding = (masked: string): DlpFinding => ({ type: "card", masked, where: "text", full: false, mass: false, count: 1 });
const context = { action: "warned" as const, messageId: "msg_rec", from: "a@example.test", to: "b@example.org" };

// The events of one transaction share their created_at: ordered by the finding's masked value.
async function dlpEvents(c: Connection, projectId: string): Promise<{ finding: DlpFinding }[]> {
  const rows = await sql<{ payload: string }>(c, "SELECT payload FROM events WHERE project_id = ? AND type = 'mail.dlp'", [projectId]);
  return rows.map((r) => JSON.parse(r.payload).data as { finding: DlpFinding }).sort((a, b) => (a.finding.masked < b.finding.masked ? -1 : 1));
}

export function describeDlpRecord(backend: BackendName, make: (c: Connection) => DlpRecordSetup): void {
  describe(`DLP record on ${backend}`, () => {
    const store = useStore(backend);

    it("writes every finding and one mail.dlp event each, committed with the caller's transaction", async () => {
      const { backend: b, repository, inspector } = make(store.main);
      const p = await newProject(store.main);
      const findings = [finding("4111 **** 1111"), { ...finding("GB82 **** 5432"), type: "iban" as const, where: "attachment:a.pdf" }];
      // The caller's own write beside it (as accept's message insert is), in the same transaction.
      await b.transact(async (tx) => {
        await inspector.record(tx, p, findings, context);
        await b.emit(tx, p, "mail.delivered", { caller: true });
      });
      const log = await repository.list(p, { limit: 10, offset: 0 });
      expect(log.total).toBe(2);
      expect(log.events.map((e) => e.finding).reverse()).toEqual(findings);
      for (const e of log.events) expect(e).toMatchObject({ action: "warned", messageId: "msg_rec", from: "a@example.test", to: "b@example.org", id: expect.stringMatching(/^dlp_/) });
      expect(await dlpEvents(store.main, p)).toEqual(findings.map((f) => ({ ...context, finding: f })));
    });

    it("writes nothing for no findings", async () => {
      const { backend: b, repository, inspector } = make(store.main);
      const p = await newProject(store.main);
      await b.transact((tx) => inspector.record(tx, p, [], context));
      expect(await repository.list(p, { limit: 10, offset: 0 })).toEqual({ events: [], total: 0 });
      expect(await dlpEvents(store.main, p)).toEqual([]);
    });

    it("leaves nothing when the caller's transaction rolls back after it", async () => {
      const { backend: b, repository, inspector } = make(store.main);
      const p = await newProject(store.main);
      await expect(
        b.transact(async (tx) => {
          await inspector.record(tx, p, [finding("x"), finding("y")], context);
          throw new Error("the send failed");
        }),
      ).rejects.toThrow("the send failed");
      expect(await repository.list(p, { limit: 10, offset: 0 })).toEqual({ events: [], total: 0 });
      expect(await dlpEvents(store.main, p)).toEqual([]);
    });

    it("all findings or none: a failure at the second leaves not even the first, and the caller's transaction goes on", async () => {
      const { backend: b, repository, inspector } = make(store.main);
      const p = await newProject(store.main);
      // A BigInt cannot be written as JSON: the second finding's row fails after the first's row and event.
      const unwritable = { ...finding("z"), count: 1n as unknown as number };
      let caught: unknown;
      await b.transact(async (tx) => {
        await inspector.record(tx, p, [finding("first"), unwritable], context).catch((error: unknown) => void (caught = error));
        await b.emit(tx, p, "mail.delivered", { caller: true });
      });
      expect(caught).toBeInstanceOf(TypeError);
      expect(await repository.list(p, { limit: 10, offset: 0 })).toEqual({ events: [], total: 0 });
      expect(await dlpEvents(store.main, p)).toEqual([]);
      // The caller's own write committed.
      expect(await sql(store.main, "SELECT id FROM events WHERE project_id = ? AND type = 'mail.delivered'", [p])).toHaveLength(1);
    });
  });
}
