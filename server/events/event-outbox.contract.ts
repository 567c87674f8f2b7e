// The behaviour of events.emit on either backend: the envelope stored once, one delivery and one
// `webhook.deliver` job per active subscription that selected the type, grouped by the receiver's
// origin, and nothing at all when the caller's transaction rolls back.
import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import { DELIVER_JOB, type EmittedEvent, type EventType } from "./event-outbox.ts";

/** emit inside a caller's transaction on this backend; `fail` makes the caller roll back after it. */
export type EmitIn = (c: Connection, projectId: string, type: EventType, data: Record<string, unknown>, fail?: boolean) => Promise<EmittedEvent>;

export function describeEventOutbox(backend: BackendName, emitIn: EmitIn): void {
  describe(`event outbox on ${backend}`, () => {
    const store = useStore(backend);
    let projectId: string;
    let hooks: Record<string, string>;
    beforeAll(async () => {
      const c = store.main;
      projectId = await newProject(c);
      const other = await newProject(c, "other");
      const add = async (project: string, id: string, url: string, events: string[], active = true) => {
        await sql(c, "INSERT INTO webhooks (id, project_id, url, events, secret_enc, active, created_at) VALUES (?, ?, ?, ?, 'sealed', ?, ?)", [
          id, project, url, JSON.stringify(events), c.backend === "sqlite" ? Number(active) : active, new Date().toISOString(),
        ]);
        return id;
      };
      hooks = {
        both: await add(projectId, "wh_both", "https://a.example:8443/hook", ["mail.received", "mail.delivered"]),
        received: await add(projectId, "wh_received", "https://b.example/in", ["mail.received"]),
        delivered: await add(projectId, "wh_delivered", "https://c.example/d", ["mail.delivered"]),
        inactive: await add(projectId, "wh_inactive", "https://d.example/x", ["mail.received"], false),
        foreign: await add(other, "wh_foreign", "https://e.example/x", ["mail.received"]),
      };
    });

    it("stores the envelope once and schedules one delivery and job per subscription that wants it", async () => {
      const c = store.main;
      const e = await emitIn(c, projectId, "mail.received", { messageId: "msg_1" });
      const envelope = JSON.parse(e.body);
      expect(envelope).toEqual({ id: e.id, type: "mail.received", createdAt: expect.any(String), data: { messageId: "msg_1" } });
      expect(await sql(c, "SELECT project_id, type, payload FROM events WHERE id = ?", [e.id])).toEqual([{ project_id: projectId, type: "mail.received", payload: e.body }]);
      const deliveries = await sql<{ id: number; webhook_id: string; status: string; payload: string; event_id: string }>(c,
        "SELECT id, webhook_id, status, payload, event_id FROM webhook_deliveries WHERE event_id = ? ORDER BY webhook_id", [e.id]);
      expect(deliveries.map((d) => d.webhook_id)).toEqual([hooks.both, hooks.received]);
      expect(deliveries.every((d) => d.status === "pending" && d.payload === e.body)).toBe(true);
      expect(deliveries.map((d) => d.id).sort()).toEqual([...e.deliveryIds].sort());
      const jobs = await sql<{ payload: string; group_key: string }>(c, "SELECT payload, group_key FROM jobs WHERE kind = ? ORDER BY id", [DELIVER_JOB]);
      const mine = jobs.map((j) => ({ ...JSON.parse(j.payload), group: j.group_key })).filter((j) => e.deliveryIds.includes(j.deliveryId));
      expect(mine.sort((a, b) => a.webhookId.localeCompare(b.webhookId))).toEqual([
        { deliveryId: deliveries[0].id, webhookId: hooks.both, group: "https://a.example:8443" },
        { deliveryId: deliveries[1].id, webhookId: hooks.received, group: "https://b.example" },
      ]);
    });

    it("an event nobody subscribed to is stored with no delivery", async () => {
      const e = await emitIn(store.main, projectId, "mail.clicked", { url: "https://x.example" });
      expect(e.deliveryIds).toEqual([]);
      expect(await sql(store.main, "SELECT id FROM events WHERE id = ?", [e.id])).toHaveLength(1);
    });

    it("rolled back with the caller's transaction, it leaves no event, delivery or job", async () => {
      const c = store.main;
      const count = async (table: string) => (await sql<{ n: number }>(c, `SELECT COUNT(*) AS n FROM ${table}`))[0].n;
      const before = await Promise.all(["events", "webhook_deliveries", "jobs"].map(count));
      await expect(emitIn(c, projectId, "mail.delivered", { messageId: "msg_2" }, true)).rejects.toThrow("caller failed");
      expect(await Promise.all(["events", "webhook_deliveries", "jobs"].map(count))).toEqual(before);
    });
  });
}
