// The behaviour of the webhook storage on either backend (server/test/backends.ts): subscriptions
// and their log (WebhookRepository) and the delivery engine's store (delivery-store.ts), seen
// through one asynchronous face. Deliveries are made the way the server makes them, by the event
// outbox, with their `webhook.deliver` jobs in the backend's queue.
import { beforeAll, describe, expect, it } from "vitest";
import { CapReachedError } from "../db/capped-insert.ts";
import { manualClock, type ManualClock } from "../jobs/clock.ts";
import { newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { AttemptResult, PendingAttempt } from "./delivery-store.ts";
import { DEACTIVATE_AFTER_MS } from "./delivery-store.ts";
import type { WebhookRepository } from "./webhook-repository.ts";

/** The delivery store as the worker uses it: each write in a transaction of its own, as a job outcome is. */
export interface DeliveryStoreFace {
  load(deliveryId: number): Promise<PendingAttempt | undefined>;
  recordDelivered(deliveryId: number, webhookId: string, result: AttemptResult): Promise<void>;
  recordFailed(deliveryId: number, webhookId: string, result: AttemptResult, retryAt: number | null): Promise<boolean>;
  abandon(deliveryId: number): Promise<void>;
  recordRedelivery(deliveryId: number, webhookId: string, result: AttemptResult, delivered: boolean): Promise<void>;
}

export interface WebhookStorage {
  webhooks: WebhookRepository;
  deliveries: DeliveryStoreFace;
  /** events.emit through the backend's outbox: the ids of the deliveries it made. */
  emit(projectId: string): Promise<number[]>;
  /** `webhook.deliver` jobs waiting in the backend's queue. */
  jobs(): Promise<number>;
}

const hookInput = (projectId: string, url = "https://hooks.example.org/in") => ({ projectId, url, events: ["mail.delivered"], secretSealed: "sealed" });
const attempt = (at: number, httpCode = 500): AttemptResult => ({ httpCode, error: `HTTP ${httpCode}`, at });

export function describeWebhookStorage(backend: BackendName, make: (c: Connection, clock: ManualClock) => WebhookStorage): void {
  describe(`webhook storage on ${backend}`, () => {
    const store = useStore(backend);
    const clock = manualClock();
    let s: WebhookStorage;
    beforeAll(() => {
      s = make(store.main, clock);
    });

    it("creates an active subscription and reads it back only within its project", async () => {
      const projectId = await newProject(store.main);
      const other = await newProject(store.main);
      const w = await s.webhooks.create({ ...hookInput(projectId), events: ["mail.bounced", "mail.opened"] });
      expect(w).toEqual({ id: expect.stringMatching(/^whk_/), projectId, url: "https://hooks.example.org/in", events: ["mail.bounced", "mail.opened"], secretSealed: "sealed", active: true, createdAt: expect.any(String) });
      expect(new Date(w.createdAt).toISOString()).toBe(w.createdAt);
      expect(await s.webhooks.get(projectId, w.id)).toEqual(w);
      expect(await s.webhooks.get(other, w.id)).toBeUndefined();
      expect(await s.webhooks.list(other)).toEqual([]);
      expect(await s.webhooks.delete(other, w.id)).toBe(false);
    });

    it("lists a project's subscriptions in creation order", async () => {
      const projectId = await newProject(store.main);
      const a = await s.webhooks.create(hookInput(projectId, "https://a.example.org/"));
      const b = await s.webhooks.create(hookInput(projectId, "https://b.example.org/"));
      const list = await s.webhooks.list(projectId);
      expect(list.map((w) => w.id).sort()).toEqual([a.id, b.id].sort());
      const keys = list.map((w) => `${w.createdAt} ${w.id}`);
      expect(keys).toEqual([...keys].sort());
    });

    it("refuses a subscription past the cap, also when creates race on two connections", async () => {
      const projectId = await newProject(store.main);
      await s.webhooks.create(hookInput(projectId), 2);
      await s.webhooks.create(hookInput(projectId), 2);
      await expect(s.webhooks.create(hookInput(projectId), 2)).rejects.toBeInstanceOf(CapReachedError);
      const raced = await newProject(store.main);
      const second = make(await store.connect(), clock);
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? s : second).webhooks.create(hookInput(raced), 5)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(CapReachedError);
      expect(await s.webhooks.list(raced)).toHaveLength(5);
    });

    it("logs a pending delivery per emitted event, newest first, limited, only under its subscription", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const other = await s.webhooks.create(hookInput(projectId));
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(...(await s.emit(projectId)));
      const mine = [];
      for (const id of ids) if ((await s.deliveries.load(id))!.hook.id === w.id) mine.push(id);
      expect(mine).toHaveLength(3);
      const log = await s.webhooks.listDeliveries(w.id, 2);
      expect(log.map((d) => d.id)).toEqual([...mine].reverse().slice(0, 2));
      // The next page starts below the last id of this one, whatever was logged meanwhile.
      await s.emit(projectId);
      expect((await s.webhooks.listDeliveries(w.id, 2, log[1].id)).map((d) => d.id)).toEqual([mine[0]]);
      expect(await s.webhooks.listDeliveries(w.id, 2, mine[0])).toEqual([]);
      expect(log[0]).toMatchObject({ webhookId: w.id, event: "mail.delivered", status: "pending", httpCode: 0, attempts: 0, nextAttemptAt: new Date(clock.now()).toISOString() });
      expect(JSON.parse(log[0].payload)).toMatchObject({ type: "mail.delivered" });
      expect(await s.webhooks.getDelivery(w.id, mine[0])).toMatchObject({ id: mine[0], webhookId: w.id });
      expect(await s.webhooks.getDelivery(other.id, mine[0])).toBeUndefined();
      expect(await s.webhooks.getDelivery(w.id, Number("abc"))).toBeUndefined();
      expect(await s.webhooks.getDelivery(w.id, 1e30)).toBeUndefined();
    });

    it("deleting a subscription takes its log and its waiting jobs with it", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const before = await s.jobs();
      const [id] = await s.emit(projectId);
      await s.emit(projectId);
      expect(await s.jobs()).toBe(before + 2);
      expect(await s.webhooks.delete(projectId, w.id)).toBe(true);
      expect(await s.jobs()).toBe(before);
      expect(await s.webhooks.getDelivery(w.id, id)).toBeUndefined();
      expect(await s.deliveries.load(id)).toBeUndefined();
      expect(await s.webhooks.delete(projectId, w.id)).toBe(false);
    });

    it("moves a delivery through the schedule: failed attempts, then delivered", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const [id] = await s.emit(projectId);
      expect(await s.deliveries.load(id)).toMatchObject({ scheduleStep: 0, delivery: { id, status: "pending", attempts: 0 }, hook: { id: w.id, active: true } });
      const t = clock.now();
      expect(await s.deliveries.recordFailed(id, w.id, attempt(t), t + 60_000)).toBe(false);
      expect(await s.deliveries.load(id)).toMatchObject({ scheduleStep: 1, delivery: { status: "pending", attempts: 1, httpCode: 500, nextAttemptAt: new Date(t + 60_000).toISOString() } });
      await s.deliveries.recordDelivered(id, w.id, { httpCode: 204, at: t + 60_000 });
      expect(await s.deliveries.load(id)).toMatchObject({ scheduleStep: 1, delivery: { status: "delivered", attempts: 2, httpCode: 204, nextAttemptAt: null } });
      // A late failure of a parallel attempt does not undo the delivered status.
      await s.deliveries.recordFailed(id, w.id, attempt(t + 61_000), t + 120_000);
      expect(await s.deliveries.load(id)).toMatchObject({ delivery: { status: "delivered", attempts: 3, nextAttemptAt: null } });
    });

    it("the last scheduled attempt fails the delivery; abandon fails only a pending one", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const [a, b] = [...(await s.emit(projectId)), ...(await s.emit(projectId))];
      await s.deliveries.recordFailed(a, w.id, attempt(clock.now(), 0), null);
      expect(await s.deliveries.load(a)).toMatchObject({ scheduleStep: 0, delivery: { status: "failed", attempts: 1, httpCode: 0, nextAttemptAt: null } });
      await s.deliveries.abandon(b);
      expect((await s.deliveries.load(b))!.delivery).toMatchObject({ status: "failed", attempts: 0, nextAttemptAt: null });
      const [c] = await s.emit(projectId);
      await s.deliveries.recordDelivered(c, w.id, { httpCode: 200, at: clock.now() });
      await s.deliveries.abandon(c);
      expect((await s.deliveries.load(c))!.delivery.status).toBe("delivered");
    });

    it("five days of failed attempts deactivate the subscription once, failing its waiting deliveries and their jobs", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const second = make(await store.connect(), clock);
      const ids = [...(await s.emit(projectId)), ...(await s.emit(projectId)), ...(await s.emit(projectId))];
      const t = clock.now();
      expect(await s.deliveries.recordFailed(ids[0], w.id, attempt(t), t + 60_000)).toBe(false);
      const jobsBefore = await s.jobs();
      // Two instances record failures past the streak at once: exactly one deactivates.
      const late = t + DEACTIVATE_AFTER_MS;
      const [x, y] = await Promise.all([s.deliveries.recordFailed(ids[0], w.id, attempt(late), late + 60_000), second.deliveries.recordFailed(ids[1], w.id, attempt(late + 1), late + 60_000)]);
      expect([x, y].filter(Boolean)).toHaveLength(1);
      expect((await s.webhooks.get(projectId, w.id))!.active).toBe(false);
      for (const id of ids) expect((await s.deliveries.load(id))!.delivery.status).toBe("failed");
      expect(await s.jobs()).toBe(jobsBefore - 3);
      // A successful redelivery revives it and ends the streak.
      await s.deliveries.recordRedelivery(ids[2], w.id, { httpCode: 200, at: late + 2 }, true);
      expect((await s.webhooks.get(projectId, w.id))!.active).toBe(true);
      expect((await s.deliveries.load(ids[2]))!.delivery).toMatchObject({ status: "delivered", attempts: 1 });
      expect(await s.deliveries.recordFailed(ids[2], w.id, attempt(late + 3), null)).toBe(false);
    });

    it("a redelivery is one extra attempt: a failure keeps the schedule, a success ends it and its job", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const jobsBefore = await s.jobs();
      const [id] = await s.emit(projectId);
      const t = clock.now();
      await s.deliveries.recordFailed(id, w.id, attempt(t), t + 60_000);
      await s.deliveries.recordRedelivery(id, w.id, attempt(t + 1, 503), false);
      expect(await s.deliveries.load(id)).toMatchObject({ scheduleStep: 1, delivery: { status: "pending", attempts: 2, httpCode: 503, nextAttemptAt: new Date(t + 60_000).toISOString() } });
      expect(await s.jobs()).toBe(jobsBefore + 1);
      await s.deliveries.recordRedelivery(id, w.id, { httpCode: 200, at: t + 2 }, true);
      expect(await s.deliveries.load(id)).toMatchObject({ scheduleStep: 1, delivery: { status: "delivered", attempts: 3, httpCode: 200, nextAttemptAt: null } });
      expect(await s.jobs()).toBe(jobsBefore);
    });

    it("an inactive subscription gets no deliveries from new events", async () => {
      const projectId = await newProject(store.main);
      const w = await s.webhooks.create(hookInput(projectId));
      const [id] = await s.emit(projectId);
      const t = clock.now();
      await s.deliveries.recordFailed(id, w.id, attempt(t), t + 1);
      await s.deliveries.recordFailed(id, w.id, attempt(t + DEACTIVATE_AFTER_MS), t + DEACTIVATE_AFTER_MS + 1);
      expect(await s.emit(projectId)).toEqual([]);
    });
  });
}
