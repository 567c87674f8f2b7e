// The delivery engine with two instances on one database (decision P2), on both stores (on SQLite
// two connections to one file, as a second process would have): each has its own connection,
// queue, worker and engine, and a receiver on loopback counts deliveries by envelope id.
// Every event is handed over exactly once across the two, and the log says so; a receiver that
// fails gets its retry from whichever instance claims it, with the schedule going on as one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOutboundConnections } from "../adapters/outbound-http.ts";
import { sendWebhook } from "../adapters/webhook-sender.ts";
import type { Store } from "../db/sql.ts";
import { DELIVER_JOB, EventOutbox } from "../events/event-outbox.ts";
import { manualClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { createWorker } from "../jobs/worker.ts";
import { backends, newProject, useStore } from "../test/backends.ts";
import { startReceiver, type Answer, type TestReceiver } from "../test/receiver.ts";
import { deliveryEngine, RETRY_DELAYS_MS } from "./delivery-engine.ts";
import { SqlDeliveryStore } from "./delivery-store.ts";
import { SqlWebhookRepository } from "./webhook-repository.ts";

for (const backend of backends) describe(`webhook delivery on ${backend}, two instances`, () => {
  const store = useStore(backend);
  const clock = manualClock();
  const receivers: TestReceiver[] = [];
  let instances: { store: Store; queue: JobQueue; outbox: EventOutbox; hooks: SqlWebhookRepository; worker: ReturnType<typeof createWorker> }[];

  beforeAll(async () => {
    const connections = [store.main.store, (await store.connect()).store];
    instances = connections.map((db) => {
      const queue = new JobQueue(db, clock);
      const engine = deliveryEngine({
        store: new SqlDeliveryStore(db, queue),
        send: (hook, delivery) => sendWebhook(hook.url, { id: delivery.eventId, type: delivery.event, body: delivery.payload }, hook.secretSealed, clock.now(), { development: true, timeoutMs: 5_000 }),
        clock,
      });
      const worker = createWorker({ queue, clock, handlers: { [DELIVER_JOB]: engine.job } });
      return { store: db, queue, outbox: new EventOutbox(queue, clock), hooks: new SqlWebhookRepository(db, queue), worker };
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await closeOutboundConnections();
  });

  async function scenario(answer: (n: number) => Answer) {
    const receiver = await startReceiver((_r, n) => answer(n));
    receivers.push(receiver);
    const projectId = await newProject(store.main);
    const hook = await instances[0].hooks.create({ projectId, url: receiver.url, events: ["mail.delivered"], secretSealed: "whsec_test" });
    const emit = (i: number) => instances[i % 2].store.transaction((tx) => instances[i % 2].outbox.emit(tx, projectId, "mail.delivered", { messageId: `msg_${i}` }));
    const byEnvelope = () => {
      const counts = new Map<string, number>();
      for (const r of receiver.received) counts.set(JSON.parse(r.body).id, (counts.get(JSON.parse(r.body).id) ?? 0) + 1);
      return counts;
    };
    return { receiver, hook, emit, byEnvelope };
  }

  /** Both instances' workers drain at once until neither finds a due job. */
  const ranBy = [0, 0];
  
  async function drainBoth(): Promise<number> {
    let total = 0;
    for (;;) {
      const ran = await Promise.all(instances.map((i) => i.worker.drain()));
      ran.forEach((n, i) => (ranBy[i] += n));
      total += ran[0] + ran[1];
      if (ran[0] + ran[1] === 0) return total;
    }
  }

  it("hands each of 400 deliveries to the receiver exactly once across the two instances", async () => {
    const s = await scenario(() => 200);
    const ids: string[] = [];
    for (let i = 0; i < 400; i++) ids.push((await s.emit(i)).id);
    expect(await drainBoth()).toBe(400);
    // Both took part (each claims at most 4 of the one origin at a time).
    expect(ranBy[0]).toBeGreaterThan(0);
    expect(ranBy[1]).toBeGreaterThan(0);
    const counts = s.byEnvelope();
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const log = await instances[1].hooks.listDeliveries(s.hook.id, 500);
    expect(log).toHaveLength(400);
    for (const d of log) expect(d).toMatchObject({ status: "delivered", attempts: 1, httpCode: 200, nextAttemptAt: null });
    expect(await instances[0].queue.count(DELIVER_JOB)).toBe(0);
  });

  it("retries a failed attempt on the schedule, whichever instance claims it", async () => {
    const s = await scenario((n) => (n < 2 ? 503 : 200));
    await s.emit(0);
    expect(await drainBoth()).toBe(1);
    clock.advance(RETRY_DELAYS_MS[0]);
    expect(await drainBoth()).toBe(1);
    clock.advance(RETRY_DELAYS_MS[1]);
    expect(await drainBoth()).toBe(1);
    expect(s.receiver.received).toHaveLength(3);
    expect(new Set(s.receiver.received.map((r) => r.body)).size).toBe(1);
    const [d] = await instances[0].hooks.listDeliveries(s.hook.id, 1);
    expect(d).toMatchObject({ status: "delivered", attempts: 3, httpCode: 200 });
  });
});
