// The delivery engine end to end: events emitted through services.events reach a receiver on
// loopback through the real worker, signed; the W2 schedule, the timeout, redelivery, deletion,
// deactivation and per-origin concurrency, with a manual clock and worker.drain().
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOutboundConnections } from "../adapters/outbound-http.ts";
import { DELIVER_JOB, EVENT_TYPES, type EventType } from "../events/event-outbox.ts";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { startReceiver, type Answer, type TestReceiver } from "../test/receiver.ts";
import { RETRY_DELAYS_MS } from "./delivery-engine.ts";
import { DEACTIVATE_AFTER_MS } from "./delivery-store.ts";

const clock = manualClock();
let platform: TestPlatform;
const receivers: TestReceiver[] = [];
let tenants = 0;

beforeAll(async () => {
  platform = await startTestPlatform({ allowHttpLoopbackWebhooks: true, webhookTimeoutMs: 300 }, { clock, runWorker: false });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await closeOutboundConnections();
  await platform.stop();
});

const MIN = 60_000;
const HOUR = 60 * MIN;

const sampleData: Record<EventType, Record<string, unknown>> = {
  "mail.received": { mailboxId: "mbx_1", mailbox: "alice@example.test", messageId: "m_1", rfcMessageId: "<a@b>", from: [{ address: "bob@example.org" }], to: [{ address: "alice@example.test" }], subject: "Hi", receivedAt: "2026-01-01T00:00:00Z", hasAttachment: false },
  "mail.delivered": { messageId: "msg_1", to: "bob@example.org", relay: "mx.example.org", relayMessageId: "250 ok" },
  "mail.bounced": { messageId: "msg_1", to: "bob@example.org", bounceType: "hard", reason: "550 no such user" },
  "mail.complained": { messageId: "msg_1", to: "bob@example.org", scope: "" },
  "mail.opened": { messageId: "msg_1", to: "bob@example.org" },
  "mail.clicked": { messageId: "msg_1", to: "bob@example.org", idx: 0, url: "https://example.org/" },
  "mail.dlp": { messageId: null, action: "blocked", from: "a@example.test", to: "b@example.org", finding: { kind: "iban" } },
  "maildomain.status_changed": { domainId: "dom_1", domain: "example.test", status: "lost", previousStatus: "verified", reason: "the verification record is not published", at: "2026-01-01T00:00:00Z" },
};

/** A fresh project (events go to every subscription of a project) with a receiver subscribed. */
async function scenario(answer?: (n: number) => Answer, events?: EventType[]) {
  const tenant: Tenant = await platform.newTenant(`eng${++tenants}`);
  const receiver = await startReceiver((_r, n) => (answer ? answer(n) : 200));
  receivers.push(receiver);
  const hook = await tenant.api("POST", "/v1/webhooks", { url: receiver.url, ...(events ? { events } : {}) });
  expect(hook.status).toBe(200);
  const emit = async (type: EventType = "mail.delivered") => platform.services.backend.emit(platform.services.backend.direct, tenant.projectId, type, sampleData[type]);
  const log = async () => (await tenant.api("GET", `/v1/webhooks/${hook.body.id}/deliveries`)).body.deliveries as any[];
  return { tenant, receiver, hook: hook.body as { id: string; secret: string }, emit, log };
}

const sign = (body: string, secret: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

describe("webhook delivery engine", () => {
  it("delivers every event type once, signed per seed §6, and logs the exact body", async () => {
    const s = await scenario();
    const bodies: string[] = [];
    for (const type of EVENT_TYPES) bodies.push((await s.emit(type)).body);
    await platform.worker.drain();
    // Four run at once per receiving origin, so they may arrive in any order.
    expect(s.receiver.received.map((r) => r.headers["x-platform-event"]).sort()).toEqual([...EVENT_TYPES].sort());
    for (const r of s.receiver.received) {
      const type = r.headers["x-platform-event"] as EventType;
      expect(r.method).toBe("POST");
      expect(r.body).toBe(bodies[EVENT_TYPES.indexOf(type)]);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["x-platform-signature"]).toBe(sign(r.body, s.hook.secret));
      expect(JSON.parse(r.body)).toEqual({ id: expect.stringMatching(/^evt_/), type, createdAt: new Date(clock.now()).toISOString(), data: sampleData[type] });
    }
    const log = await s.log();
    expect(log).toHaveLength(EVENT_TYPES.length);
    expect(log.map((d) => d.event)).toEqual([...EVENT_TYPES].reverse()); // newest first
    for (const d of log) expect(d).toMatchObject({ status: "delivered", httpCode: 200, attempts: 1, nextAttemptAt: null });
    expect(log.map((d) => d.payload).reverse()).toEqual(bodies);
    expect(await platform.services.backend.countJobs(DELIVER_JOB)).toBe(0);
  });

  it("pages the log with before=<last id>: every delivery once, unshifted by newer ones", async () => {
    const s = await scenario();
    for (let i = 0; i < 5; i++) await s.emit();
    await platform.worker.drain();
    const page = async (query: string) => (await s.tenant.api("GET", `/v1/webhooks/${s.hook.id}/deliveries?${query}`)).body.deliveries as { id: number }[];
    const all = (await page("limit=200")).map((d) => d.id);
    expect(all).toHaveLength(5);
    const first = await page("limit=2");
    await s.emit(); // logged between two page reads: it must not push an old one onto the next page
    const second = await page(`limit=2&before=${first[1].id}`);
    const third = await page(`limit=2&before=${second[1].id}`);
    expect([...first, ...second, ...third].map((d) => d.id)).toEqual(all);
    expect(await page(`before=${all[4]}`)).toEqual([]);
    const bad = await s.tenant.api("GET", `/v1/webhooks/${s.hook.id}/deliveries?before=0`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: expect.any(String), error: expect.stringContaining("before") });
  });

  it("sends only the events a subscription selected", async () => {
    const s = await scenario(undefined, ["mail.bounced"]);
    await s.emit("mail.delivered");
    await s.emit("mail.bounced");
    await platform.worker.drain();
    expect(s.receiver.received.map((r) => r.headers["x-platform-event"])).toEqual(["mail.bounced"]);
  });

  it("retries a 500 after 1, 5 and 30 minutes, with the same body and envelope id, until a 2xx", async () => {
    const s = await scenario((n) => (n < 3 ? 500 : 204));
    const start = clock.now();
    const { body } = await s.emit();
    await platform.worker.drain();
    expect(await s.log()).toEqual([expect.objectContaining({ status: "pending", httpCode: 500, attempts: 1, nextAttemptAt: new Date(start + MIN).toISOString() })]);
    clock.advance(MIN - 1);
    expect(await platform.worker.drain()).toBe(0); // not due yet
    clock.advance(1);
    await platform.worker.drain();
    expect((await s.log())[0]).toMatchObject({ status: "pending", attempts: 2, nextAttemptAt: new Date(start + 6 * MIN).toISOString() });
    clock.advance(5 * MIN);
    await platform.worker.drain();
    expect((await s.log())[0]).toMatchObject({ status: "pending", attempts: 3, nextAttemptAt: new Date(start + 36 * MIN).toISOString() });
    clock.advance(30 * MIN);
    await platform.worker.drain();
    expect((await s.log())[0]).toMatchObject({ status: "delivered", httpCode: 204, attempts: 4, nextAttemptAt: null, payload: body });
    expect(s.receiver.received.map((r) => r.body)).toEqual([body, body, body, body]);
    expect(new Set(s.receiver.received.map((r) => r.headers["x-platform-signature"])).size).toBe(1);
    clock.advance(24 * HOUR);
    await platform.worker.drain();
    expect(s.receiver.received).toHaveLength(4);
  });

  it("runs the whole 20.6-hour schedule (7 attempts) and then marks the delivery failed", async () => {
    const attemptsAt: number[] = [];
    const s = await scenario(() => {
      attemptsAt.push(clock.now());
      return 503;
    });
    const start = clock.now();
    await s.emit();
    await platform.worker.drain();
    for (const delay of RETRY_DELAYS_MS) {
      clock.advance(delay);
      await platform.worker.drain();
    }
    const expected = RETRY_DELAYS_MS.reduce((at, d) => [...at, at.at(-1)! + d], [start]);
    expect(attemptsAt).toEqual(expected);
    expect(expected.at(-1)! - start).toBe(20.6 * HOUR);
    expect(await s.log()).toEqual([expect.objectContaining({ status: "failed", httpCode: 503, attempts: 7, nextAttemptAt: null })]);
    clock.advance(48 * HOUR);
    await platform.worker.drain();
    expect(attemptsAt).toHaveLength(7);
  });

  it("counts a receiver that does not answer within the timeout as a failed attempt (httpCode 0)", async () => {
    const s = await scenario(() => "hang"); // the test's config shortens the 10 s timeout to 300 ms
    const start = clock.now();
    await s.emit();
    await platform.worker.drain();
    expect(s.receiver.received).toHaveLength(1);
    expect(await s.log()).toEqual([expect.objectContaining({ status: "pending", httpCode: 0, attempts: 1, nextAttemptAt: new Date(start + MIN).toISOString() })]);
  });

  it("redeliver is one extra attempt now: the schedule goes on as it was; a success ends it", async () => {
    const answers: Answer[] = [500, 500, 500, 500, 200];
    const s = await scenario((n) => answers[n] ?? 200);
    const start = clock.now();
    await s.emit();
    await platform.worker.drain(); // attempt 1: 500, next at +1 min
    const id = (await s.log())[0].id;
    const failed = await s.tenant.api("POST", `/v1/webhooks/${s.hook.id}/deliveries/${id}/redeliver`);
    expect(failed.body).toEqual({ status: "failed", httpCode: 500 });
    expect((await s.log())[0]).toMatchObject({ status: "pending", attempts: 2, nextAttemptAt: new Date(start + MIN).toISOString() });
    clock.advance(MIN);
    await platform.worker.drain(); // the scheduled retry 1 (500): next is retry 2, 5 min later
    expect((await s.log())[0]).toMatchObject({ status: "pending", attempts: 3, nextAttemptAt: new Date(start + 6 * MIN).toISOString() });
    expect((await s.tenant.api("POST", `/v1/webhooks/${s.hook.id}/deliveries/${id}/redeliver`)).body).toEqual({ status: "failed", httpCode: 500 });
    const ok = await s.tenant.api("POST", `/v1/webhooks/${s.hook.id}/deliveries/${id}/redeliver`);
    expect(ok.body).toEqual({ status: "delivered", httpCode: 200 });
    expect((await s.log())[0]).toMatchObject({ status: "delivered", httpCode: 200, attempts: 5, nextAttemptAt: null });
    clock.advance(HOUR);
    await platform.worker.drain();
    expect(s.receiver.received).toHaveLength(5); // the scheduled retry was dropped
    // A failed redelivery of a delivered one leaves it delivered.
    answers.push(500);
    expect((await s.tenant.api("POST", `/v1/webhooks/${s.hook.id}/deliveries/${id}/redeliver`)).body).toEqual({ status: "failed", httpCode: 500 });
    expect((await s.log())[0]).toMatchObject({ status: "delivered", attempts: 6 });
  });

  it("deleting a subscription stops its pending deliveries", async () => {
    const s = await scenario(() => 500);
    await s.emit();
    await s.emit();
    await platform.worker.drain();
    expect(s.receiver.received).toHaveLength(2);
    const pendingJobs = () => (platform.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE json_extract(payload, '$.webhookId') = ?").get(s.hook.id) as { n: number }).n;
    expect(pendingJobs()).toBe(2);
    expect((await s.tenant.api("DELETE", `/v1/webhooks/${s.hook.id}`)).body).toEqual({ deleted: true });
    expect(pendingJobs()).toBe(0);
    clock.advance(24 * HOUR);
    await platform.worker.drain();
    expect(s.receiver.received).toHaveLength(2);
  });

  it("deactivates a subscription whose attempts have all failed for 5 days; a successful redelivery revives it", async () => {
    let answer = 500;
    const s = await scenario(() => answer);
    const start = clock.now();
    const active = async () => (await s.tenant.api("GET", "/v1/webhooks")).body.webhooks[0].active;
    // Day 0: one event fails its whole schedule.
    await s.emit();
    await platform.worker.drain();
    for (const delay of RETRY_DELAYS_MS) {
      clock.advance(delay);
      await platform.worker.drain();
    }
    // Day 5 minus a minute: a new event fails its first attempt; the streak is not 5 days yet.
    clock.set(start + DEACTIVATE_AFTER_MS - MIN);
    await s.emit();
    await s.emit();
    await platform.worker.drain();
    expect(await active()).toBe(true);
    // Its retry a minute later fails at 5 days: deactivated, its waiting deliveries given up.
    clock.advance(MIN);
    await platform.worker.drain();
    expect(await active()).toBe(false);
    const log = await s.log();
    expect(log.map((d) => d.status)).toEqual(["failed", "failed", "failed"]);
    expect(await platform.services.backend.countJobs(DELIVER_JOB)).toBe(0);
    const attempts = s.receiver.received.length;
    await s.emit(); // an inactive subscription gets no new deliveries
    await platform.worker.drain();
    expect(await s.log()).toHaveLength(3);
    expect(s.receiver.received).toHaveLength(attempts);
    // The receiver is back: one successful redelivery makes the subscription active again.
    answer = 200;
    expect((await s.tenant.api("POST", `/v1/webhooks/${s.hook.id}/deliveries/${log[0].id}/redeliver`)).body).toEqual({ status: "delivered", httpCode: 200 });
    expect(await active()).toBe(true);
    await s.emit();
    await platform.worker.drain();
    expect((await s.log())[0]).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("a success within 5 days keeps the subscription active", async () => {
    let answer = 500;
    const s = await scenario(() => answer);
    await s.emit();
    await platform.worker.drain();
    answer = 200;
    clock.advance(MIN);
    await platform.worker.drain();
    answer = 500;
    clock.advance(DEACTIVATE_AFTER_MS - 2 * MIN);
    await s.emit();
    await platform.worker.drain();
    clock.advance(MIN);
    await platform.worker.drain();
    expect((await s.tenant.api("GET", "/v1/webhooks")).body.webhooks[0].active).toBe(true);
  });

  it("a slow receiver holds at most its per-origin share; another receiver is served meanwhile", async () => {
    const ref: { slow?: TestReceiver } = {};
    let slowMax = 0;
    const slow = await scenario(() => {
      // Requests answered later are still open at the receiver: this one plus those.
      slowMax = Math.max(slowMax, ref.slow!.pending() + 1);
      return { status: 200, delayMs: 100 };
    });
    ref.slow = slow.receiver;
    const fast = await scenario();
    for (let i = 0; i < 20; i++) await slow.emit();
    for (let i = 0; i < 5; i++) await fast.emit();
    let slowAnsweredWhenFastDone = -1;
    void fast.receiver.waitFor(5).then(() => (slowAnsweredWhenFastDone = slow.receiver.received.length - slow.receiver.pending()));
    await platform.worker.drain();
    expect(slow.receiver.received).toHaveLength(20);
    expect(fast.receiver.received).toHaveLength(5);
    expect(slowMax).toBe(4); // the worker's per-group limit, reached and never passed
    expect(slowAnsweredWhenFastDone).toBeGreaterThanOrEqual(0);
    expect(slowAnsweredWhenFastDone).toBeLessThan(20); // the fast receiver did not wait for the slow one
  });
});
