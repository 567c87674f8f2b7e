// The send side through real HTTP: bad input changes nothing, scheduled sends and cancel,
// batches, idempotency under concurrency, templates from the console, suppression by stream and
// scope, stats. A loopback sink stands in for recipients (their MX through our DNS).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../console/commands.ts";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";

let sink: SmtpSink;
let p: TestPlatform;
let t: Tenant;
let other: Tenant;
const clock = manualClock();

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "relay.platform.test", port: sink.port, allowLoopback: true } }, { clock, runWorker: false });
  t = await p.newTenant("acme");
  other = await p.newTenant("rival");
  await hostMailZone(p.services, "dest.test");
});
afterAll(async () => {
  await p.stop();
  await sink.close();
});
beforeEach(() => {
  sink.messages.length = 0;
});

const messageCount = () => (p.db.prepare("SELECT COUNT(*) AS n FROM sent_messages").get() as { n: number }).n;
const jobCount = () => (p.db.prepare("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n;
const base = () => ({ from: `news@${t.domain}`, to: "bob@dest.test", subject: "Hi", text: "Hello" });
const status = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body.message.status;

describe("bad input is a clear 4xx and changes nothing", () => {
  const big = Buffer.alloc(15 * 1024 * 1024 + 1).toString("base64");
  it.each([
    ["a foreign sender domain", () => ({ ...base(), from: `news@${other.domain}` }), 400, "body.from"],
    ["an unconnected sender domain", () => ({ ...base(), from: "news@nowhere.test" }), 400, "body.from"],
    ["invalid base64", () => ({ ...base(), attachments: [{ filename: "a.txt", content: "abc" }] }), 400, "body.attachments[0].content"],
    ["attachments over 15 MB", () => ({ ...base(), attachments: [{ filename: "big.bin", content: big }] }), 413, undefined],
    ["a reserved header", () => ({ ...base(), headers: { "Return-Path": "x@y.test" } }), 400, "body.headers.Return-Path"],
    ["a List-Unsubscribe header", () => ({ ...base(), headers: { "List-Unsubscribe-Post": "x" } }), 400, "body.headers.List-Unsubscribe-Post"],
    ["a Content- header", () => ({ ...base(), headers: { "content-type": "text/plain" } }), 400, "body.headers.content-type"],
    ["CRLF in a header value", () => ({ ...base(), headers: { "X-Ok": "a\r\nBcc: evil@x.test" } }), 400, "body.headers.X-Ok"],
    ["CRLF in a header name", () => ({ ...base(), headers: { "X-A\nB": "v" } }), 400, "body.headers.X-A\nB"],
    ["CRLF in the subject", () => ({ ...base(), subject: "Hi\r\nBcc: evil@x.test" }), 400, "body.subject"],
    ["sendAt beyond 90 days", () => ({ ...base(), sendAt: new Date(clock.now() + 91 * 86_400_000).toISOString() }), 400, "body.sendAt"],
    ["an unknown template", () => ({ from: `news@${t.domain}`, to: "bob@dest.test", template: { id: "tpl_missing" } }), 400, "body.template.id"],
  ])("%s", async (_name, body, code, path) => {
    const [messages, jobs] = [messageCount(), jobCount()];
    const res = await t.api("POST", "/v1/mail/send", body());
    expect(res.status).toBe(code);
    expect(res.body).toMatchObject({ error: expect.any(String), code: code === 413 ? "payload_too_large" : "invalid_request" });
    if (path) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    expect([messageCount(), jobCount()]).toEqual([messages, jobs]);
  });

  it("more than 200 batch messages", async () => {
    const res = await t.api("POST", "/v1/mail/send-batch", { from: `news@${t.domain}`, subject: "Hi", messages: Array.from({ length: 201 }, (_, i) => ({ to: `u${i}@dest.test` })) });
    expect(res.status).toBe(400);
    expect(messageCount()).toBe(0);
  });

  it("an idempotencyKey reused with another body is 409 and sends nothing more", async () => {
    const first = await t.api("POST", "/v1/mail/send", { ...base(), idempotencyKey: "order-1" });
    expect(first.status).toBe(200);
    const [messages, jobs] = [messageCount(), jobCount()];
    const res = await t.api("POST", "/v1/mail/send", { ...base(), text: "Other", idempotencyKey: "order-1" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("idempotency_conflict");
    expect([messageCount(), jobCount()]).toEqual([messages, jobs]);
    await p.worker.drain();
  });
});

it("20 concurrent identical requests with one idempotencyKey store one message and answer the same", async () => {
  const before = messageCount();
  const body = { ...base(), idempotencyKey: "signup-42" };
  const answers = await Promise.all(Array.from({ length: 20 }, () => t.api("POST", "/v1/mail/send", body)));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
  expect(messageCount()).toBe(before + 1);
  await p.worker.drain();
  expect(sink.messages).toHaveLength(1);
});

it("a scheduled send fires at its time; cancel works only while scheduled", async () => {
  const later = await t.api("POST", "/v1/mail/send", { ...base(), sendAt: new Date(clock.now() + 3_600_000).toISOString() });
  expect(later.body).toMatchObject({ status: "scheduled", relay: null, relayMessageId: null });
  const canceled = await t.api("POST", "/v1/mail/send", { ...base(), sendAt: new Date(clock.now() + 3_600_000).toISOString() });
  expect((await t.api("DELETE", `/v1/mail/messages/${canceled.body.id}`)).body).toEqual({ id: canceled.body.id, status: "canceled" });
  clock.advance(3_599_999);
  await p.worker.drain();
  expect(await status(later.body.id)).toBe("scheduled");
  clock.advance(1);
  await p.worker.drain();
  expect(await status(later.body.id)).toBe("delivered");
  expect(await status(canceled.body.id)).toBe("canceled");
  expect(sink.messages).toHaveLength(1);
  const again = await t.api("DELETE", `/v1/mail/messages/${later.body.id}`);
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ code: "not_cancelable", error: expect.stringContaining("delivered") });
  expect((await t.api("DELETE", "/v1/mail/messages/msg_unknown")).status).toBe(404);
  expect((await other.api("DELETE", `/v1/mail/messages/${later.body.id}`)).status).toBe(404);
});

it("of a cancel and a dispatch at the same instant exactly one wins", async () => {
  const outcomes = { canceled: 0, sent: 0 };
  for (let i = 0; i < 10; i++) {
    sink.messages.length = 0;
    const res = await t.api("POST", "/v1/mail/send", { ...base(), to: `race${i}@dest.test`, sendAt: new Date(clock.now() + 60_000).toISOString() });
    clock.advance(60_000);
    const [cancel] = await Promise.all([t.api("DELETE", `/v1/mail/messages/${res.body.id}`), p.worker.drain()]);
    await p.worker.drain();
    const final = await status(res.body.id);
    if (cancel.status === 200) {
      expect(final).toBe("canceled");
      expect(sink.messages).toHaveLength(0);
      outcomes.canceled++;
    } else {
      expect(cancel.body.code).toBe("not_cancelable");
      expect(final).toBe("delivered");
      expect(sink.messages).toHaveLength(1);
      outcomes.sent++;
    }
  }
  expect(outcomes.canceled + outcomes.sent).toBe(10);
});

it("a batch of 200 with vars: one result per message, subject and HTML filled in, HTML escaped", async () => {
  const messages = Array.from({ length: 200 }, (_, i) => ({ to: `user${i}@dest.test`, vars: { name: i === 7 ? "<b>Eve</b>" : `User ${i}` } }));
  const res = await t.api("POST", "/v1/mail/send-batch", { from: `news@${t.domain}`, subject: "Hi {{name}}", html: "<p>Hello {{name}}</p>", text: "Hello {{name}}", messages, campaign: "spring" });
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(200);
  expect(res.body.counts).toEqual({ sent: 200 });
  expect(res.body.results[3]).toEqual({ to: "user3@dest.test", id: expect.stringMatching(/^msg_/), status: "sent" });
  await p.worker.drain();
  expect(sink.messages).toHaveLength(200);
  const eve = sink.messages.find((m) => m.rcptTo[0] === "user7@dest.test")!.raw.toString();
  expect(eve).toContain("Subject: Hi <b>Eve</b>");
  expect(eve).toContain("&lt;b&gt;Eve&lt;/b&gt;");
  const listed = await t.api("GET", "/v1/mail/messages?campaign=spring&limit=200");
  expect(listed.body.messages).toHaveLength(200);
  expect(listed.body.messages.every((m: { status: string }) => m.status === "delivered")).toBe(true);
});

it("templates from the console: current version, a fixed version, rollback", async () => {
  const admin = (...args: string[]) => runCommand({ projects: p.services.projects, keys: p.services.keys, zones: p.services.zones, scopes: [], templates: p.services.templates }, args);
  const created = await admin("templates", "create", "--project", t.projectId, "--name", "welcome", "--subject", "Welcome {{name}}", "--text", "v1 for {{name}}");
  const id = /(tpl_\w+)/.exec(created)![1];
  await admin("templates", "update", id, "--text", "v2 for {{name}}");
  const send = (version?: number) => t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "tpl@dest.test", template: { id, version, vars: { name: "Ann" } } });
  expect((await send()).status).toBe(200);
  expect((await send(1)).status).toBe(200);
  await admin("templates", "rollback", id, "--version", "1");
  expect((await send()).status).toBe(200);
  const missing = await send(9);
  expect(missing.status).toBe(400);
  expect(missing.body.details[0].path).toBe("body.template.version");
  expect((await other.api("POST", "/v1/mail/send", { from: `news@${other.domain}`, to: "tpl@dest.test", template: { id } })).status).toBe(400);
  await p.worker.drain();
  const bodies = sink.messages.map((m) => m.raw.toString());
  expect(bodies.map((b) => /v\d for Ann/.exec(b)?.[0])).toEqual(["v2 for Ann", "v1 for Ann", "v1 for Ann"]);
  expect(bodies.every((b) => b.includes("Subject: Welcome Ann"))).toBe(true);
});

it("complaints and unsubscribes suppress the marketing stream of their scope; transactional mail still goes", async () => {
  const send = (stream: string, scope?: string) => t.api("POST", "/v1/mail/send", { ...base(), to: "fan@dest.test", stream, scope });
  const first = await send("marketing", "shop-a");
  await p.worker.drain();
  expect(await p.services.mailFeedback.markComplained(first.body.id)).toBe(true);
  expect(await status(first.body.id)).toBe("complained");
  expect((await send("marketing", "shop-a")).body.status).toBe("suppressed");
  expect((await send("marketing", "shop-b")).body.status).toBe("sent");
  expect((await send("marketing")).body.status).toBe("sent");
  expect((await send("transactional", "shop-a")).body.status).toBe("sent");
  // An unsubscribe from a project-wide (empty scope) message covers every scope.
  const wide = await send("marketing");
  expect(await p.services.mailFeedback.recordUnsubscribe(wide.body.id)).toBe(true);
  expect((await send("marketing", "shop-b")).body.status).toBe("suppressed");
  expect((await send("transactional")).body.status).toBe("sent");
  await p.worker.drain();
});

it("stats: funnel, rates and health over the period, by campaign", async () => {
  const res = await t.api("GET", "/v1/mail/stats?days=30&campaign=spring");
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ days: 30, total: 200, funnel: { accepted: 200, delivered: 200, bounced: 0 }, rates: { delivery: 100, bounce: 0 }, health: "ok", problems: [] });
  const all = await t.api("GET", "/v1/mail/stats");
  expect(all.body.funnel.complained).toBe(1);
  expect(all.body.health).toBe("critical"); // one complaint in a few hundred is far above 0.1 %
  expect(all.body.problems[0]).toContain("complaint rate");
});
