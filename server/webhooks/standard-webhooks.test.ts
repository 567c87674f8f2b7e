// Standard Webhooks signing (decision W7) and the test event operation (decision W8), through the
// real server on SQLite and PostgreSQL to a real loopback receiver. What verifies our deliveries is
// the reference implementation, the spec authors' own `standardwebhooks` library, given the secret
// exactly as createWebhook showed it; the seed's X-Platform-Signature is checked beside it.
import { createHmac, randomBytes } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../test/contract/openapi.ts";
import { contractValidator, pointer } from "../../test/contract/validator.ts";
import { EVENT_TYPES } from "../events/event-outbox.ts";
import { manualClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { startReceiver, type Received, type TestReceiver } from "../test/receiver.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

const validate = contractValidator(loadContract());
const bodySchema = (type: string) => pointer("webhooks", type, "post", "requestBody", "content", "application/json", "schema");
const headers = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));

describe.each(backends)("Standard Webhooks and test events on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let receiver: TestReceiver;
  let t: Tenant;
  let other: Tenant;
  let hook: { id: string; secret: string };
  // The attempts' clock starts at the real time: the library checks timestamps against Date.now().
  const clock = manualClock(Date.now());
  // The n-th request is answered by answers[n] (default 204).
  const answers: number[] = [];

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    receiver = await startReceiver((_r, n) => answers[n] ?? 204);
    p = await startTestPlatform({ databaseUrl, allowHttpLoopbackWebhooks: true }, { clock, runWorker: false });
    t = await p.newTenant(`sw-${backend}`);
    other = await p.newTenant(`sw-other-${backend}`);
    // Subscribed to one event only: a test event may be of any type.
    const created = await t.api("POST", "/v1/webhooks", { url: receiver.url, events: ["mail.delivered"] });
    expect(created.status).toBe(200);
    hook = created.body;
  });
  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
    await database?.stop();
  });

  /** Runs the due jobs; answers the requests that arrived meanwhile. */
  let taken = 0;
  async function arrived(): Promise<Received[]> {
    await p.worker.drain();
    const fresh = receiver.received.slice(taken);
    taken = receiver.received.length;
    return fresh;
  }
  const deliveries = async () => (await t.api("GET", `/v1/webhooks/${hook.id}/deliveries`)).body.deliveries;

  it("a new secret is whsec_ and 44 alphanumerics: the same 33-byte key in base64 and base64url", () => {
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9]{44}$/);
    const body = hook.secret.slice(6);
    expect(Buffer.from(body, "base64")).toHaveLength(33);
    expect(Buffer.from(body, "base64").toString("base64")).toBe(body);
  });

  it.each(EVENT_TYPES)("a test event of %s: logged as test, delivered through the queue, verified by the reference library", async (type) => {
    const sent = await t.api("POST", `/v1/webhooks/${hook.id}/test`, { event: type });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ id: expect.any(Number), event: type, status: "pending", attempts: 0, httpCode: 0, test: true });
    const [r] = await arrived();
    expect(r.body).toBe(sent.body.payload);
    // The reference implementation, with the secret as shown, prefix and all.
    const event = new Webhook(hook.secret).verify(r.body, headers(r)) as Record<string, unknown>;
    expect(event).toMatchObject({ type, test: true });
    expect(validate(bodySchema(type), event)).toEqual([]);
    expect(r.headers["webhook-id"]).toBe(event.id);
    expect(r.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.now() / 1000)));
    expect(r.headers["x-platform-event"]).toBe(type);
    expect(r.headers["x-platform-signature"]).toBe(`sha256=${createHmac("sha256", hook.secret).update(r.body).digest("hex")}`);
    const logged = (await deliveries()).find((d: { id: number }) => d.id === sent.body.id);
    expect(logged).toMatchObject({ status: "delivered", attempts: 1, httpCode: 204, test: true, payload: r.body });
  });

  it("a real event is signed the same way, and is not marked as a test", async () => {
    const sent = await t.api("POST", "/v1/mail/send", { from: `hello@${t.domain}`, to: "delivered@sandbox.platform.test", subject: "SW", text: "x" });
    expect(sent.status).toBe(200);
    let got: Received[] = [];
    for (let i = 0; i < 5 && got.length === 0; i++) got = await arrived();
    expect(got).toHaveLength(1);
    const event = new Webhook(hook.secret).verify(got[0].body, headers(got[0])) as Record<string, unknown>;
    expect(event).toMatchObject({ type: "mail.delivered", data: expect.objectContaining({ messageId: sent.body.id }) });
    expect(event).not.toHaveProperty("test");
    expect((await deliveries())[0]).toMatchObject({ event: "mail.delivered", test: false });
  });

  it("retries and redeliveries keep webhook-id and carry their own timestamp; each verifies", async () => {
    answers[receiver.received.length] = 500;
    const sent = await t.api("POST", `/v1/webhooks/${hook.id}/test`, { event: "mail.bounced" });
    const [first] = await arrived();
    expect((await deliveries())[0]).toMatchObject({ id: sent.body.id, status: "pending", attempts: 1, httpCode: 500 });
    clock.advance(60_000); // the first retry (W2)
    const [retry] = await arrived();
    clock.advance(1_000);
    const redelivered = await t.api("POST", `/v1/webhooks/${hook.id}/deliveries/${sent.body.id}/redeliver`);
    expect(redelivered.body).toEqual({ status: "delivered", httpCode: 204 });
    const [again] = receiver.received.slice(taken);
    taken = receiver.received.length;
    const attempts = [first, retry, again];
    expect(new Set(attempts.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(attempts.map((r) => Number(r.headers["webhook-timestamp"]))).toEqual(
      [0, 60, 61].map((s) => Math.floor((clock.now() - 61_000) / 1000) + s),
    );
    for (const r of attempts) expect(() => new Webhook(hook.secret).verify(r.body, headers(r))).not.toThrow();
  });

  it("the reference library refuses a changed body, a moved timestamp, another secret and an attempt older than 5 minutes", async () => {
    await t.api("POST", `/v1/webhooks/${hook.id}/test`, { event: "mail.opened" });
    const [r] = await arrived();
    const h = headers(r);
    const wh = new Webhook(hook.secret);
    expect(() => wh.verify(r.body.replace("msg_test", "msg_tesu"), h)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(r.body, { ...h, "webhook-timestamp": String(Number(h["webhook-timestamp"]) + 1) })).toThrow(WebhookVerificationError);
    expect(() => wh.verify(r.body, { ...h, "webhook-id": "evt_other" })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(`whsec_${randomBytes(33).toString("base64")}`).verify(r.body, h)).toThrow(WebhookVerificationError);
    // An attempt made 6 minutes before the real time (the library's "now"): its own timestamp is too
    // old to accept. Set from Date.now(), not moved back from the manual clock: the earlier tests moved
    // that 61 s ahead, which left a fast run only 299 s behind the real time, within the tolerance.
    const before = clock.now();
    clock.set(Date.now() - 6 * 60_000);
    await t.api("POST", `/v1/webhooks/${hook.id}/test`, { event: "mail.opened" });
    const [old] = await arrived();
    clock.set(before);
    expect(() => wh.verify(old.body, headers(old))).toThrow("Message timestamp too old");
  });

  it.each([
    ["an unknown event type", () => t.api("POST", `/v1/webhooks/${hook.id}/test`, { event: "mail.unknown" }), 400],
    ["no event type", () => t.api("POST", `/v1/webhooks/${hook.id}/test`, {}), 400],
    ["an event type of the wrong kind", () => t.api("POST", `/v1/webhooks/${hook.id}/test`, { event: ["mail.delivered"] }), 400],
    ["another project's webhook", () => other.api("POST", `/v1/webhooks/${hook.id}/test`, { event: "mail.delivered" }), 404],
    ["an unknown webhook", () => t.api("POST", "/v1/webhooks/whk_nosuch/test", { event: "mail.delivered" }), 404],
  ])("%s is a 4xx and changes nothing", async (_n, call, status) => {
    const before = await deliveries();
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    expect(await deliveries()).toEqual(before);
    expect(await arrived()).toEqual([]);
  });

  it("needs the webhooks scope", async () => {
    const scoped = await p.newTenant(`sw-scoped-${backend}`, { scopes: ["mail:send"] });
    const res = await scoped.api("POST", `/v1/webhooks/${hook.id}/test`, { event: "mail.delivered" });
    expect(res.status).toBe(403);
  });
});
