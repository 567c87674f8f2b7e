// A message sent through the API reaches a real SMTP server (a loopback sink found as the
// recipient domain's MX through our own DNS), DKIM-signed with the sender domain's key.
import { randomBytes } from "node:crypto";
import { dkimVerify } from "mailauth";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";
import { RETRY_DELAYS_MS } from "./retry-schedule.ts";

let sink: SmtpSink;
let p: TestPlatform;
let t: Tenant;
const clock = manualClock();

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "relay.platform.test", port: sink.port, allowLoopback: true } }, { clock, runWorker: false });
  t = await p.newTenant("sender");
  await hostMailZone(p.services, "dest.test");
  // Nothing listens on 127.0.0.2: connections are refused.
  await hostMailZone(p.services, "void.test", "127.0.0.2");
});
afterAll(async () => {
  await p.stop();
  await sink.close();
});
beforeEach(() => {
  sink.messages.length = 0;
  sink.refuse = () => undefined;
});

const status = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body.message.status;
const eventTypes = () => (p.db.prepare("SELECT type FROM events ORDER BY rowid").all() as { type: string }[]).map((r) => r.type);

it("delivers a DKIM-signed message with its headers and attachments byte-exact", async () => {
  const pdf = randomBytes(70_000);
  const res = await t.api("POST", "/v1/mail/send", {
    from: `news@${t.domain}`,
    to: "bob@dest.test",
    cc: ["carol@dest.test"],
    subject: "Welcome, Bob",
    text: "Hello Bob",
    html: "<p>Hello <b>Bob</b></p>",
    headers: { "X-Order": "A-17" },
    attachments: [{ filename: "report.pdf", content: pdf.toString("base64"), contentType: "application/pdf" }],
    campaign: "onboarding",
  });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ id: expect.stringMatching(/^msg_/), status: "sent", relay: "relay.platform.test", relayMessageId: expect.any(String) });
  await p.worker.drain();
  expect(sink.messages).toHaveLength(2);
  const received = sink.messages.find((m) => m.rcptTo.includes("bob@dest.test"))!;
  // The signed VERP address (T6), the one stored with the message; the Cc copy has its own.
  expect(received.mailFrom).toMatch(new RegExp(`^bounces\\+${res.body.id}\\.[0-9a-hjkmnp-tv-z]{16}@${t.domain}$`));
  expect(received.mailFrom).toBe((await p.services.sentMessages.getForRelay(res.body.id))!.returnPath);
  const copy = sink.messages.find((m) => m.rcptTo.includes("carol@dest.test"))!;
  expect(copy.mailFrom).toMatch(new RegExp(`^bounces\\+${res.body.id}\\.c\\.[0-9a-hjkmnp-tv-z]{16}@${t.domain}$`));
  expect(received.secure).toBe(true); // opportunistic STARTTLS

  const parsed = await simpleParser(received.raw);
  expect(parsed.subject).toBe("Welcome, Bob");
  expect(parsed.messageId).toBe(`<${res.body.id}@${t.domain}>`);
  expect(parsed.headers.get("x-order")).toBe("A-17");
  expect(parsed.headers.has("bcc")).toBe(false);
  expect(parsed.attachments[0].filename).toBe("report.pdf");
  expect(Buffer.compare(parsed.attachments[0].content, pdf)).toBe(0);

  const verdict = await dkimVerify(received.raw, { resolver: async (name: string) => p.services.resolver.resolveTxt(name) });
  expect(verdict.results).toHaveLength(1);
  expect(verdict.results[0].status.result).toBe("pass");
  expect(verdict.results[0].signingDomain).toBe(t.domain);
  expect(verdict.results[0].selector).toBe("platform");

  const detail = (await t.api("GET", `/v1/mail/messages/${res.body.id}`)).body;
  expect(detail.message).toMatchObject({ status: "delivered", relay: "relay.platform.test", toAddr: "bob@dest.test" });
  expect(detail.events.map((e: { event: string }) => e.event)).toEqual(["sent", "delivered"]);
  expect(eventTypes()).toContain("mail.delivered");
});

it("a message queued before signed VERP addresses (T6) leaves with a signed one, so its DSNs still count", async () => {
  const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "queued@dest.test", subject: "Hi", text: "x" });
  const unsigned = `bounces+${res.body.id}@${t.domain}`;
  p.db.prepare("UPDATE sent_messages SET return_path = ? WHERE id = ?").run(unsigned, res.body.id);
  await p.worker.drain();
  const received = sink.messages.find((m) => m.rcptTo.includes("queued@dest.test"))!;
  expect(received.mailFrom).toMatch(new RegExp(`^bounces\\+${res.body.id}\\.[0-9a-hjkmnp-tv-z]{16}@${t.domain}$`));
  expect(p.services.returnPaths.verify(received.mailFrom, { id: res.body.id, to: "queued@dest.test", from: `news@${t.domain}` })).toBe("to");
});

it("a 5xx answer bounces the message and suppresses the address in both streams", async () => {
  sink.refuse = (rcpt) => (rcpt === "gone@dest.test" ? { code: 550, text: "5.1.1 no such user" } : undefined);
  const first = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "gone@dest.test", subject: "Hi", text: "x" });
  await p.worker.drain();
  expect(await status(first.body.id)).toBe("bounced");
  expect(eventTypes()).toContain("mail.bounced");
  for (const stream of ["transactional", "marketing"]) {
    const again = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "gone@dest.test", subject: "Hi", text: "x", stream });
    expect(again.body).toMatchObject({ status: "suppressed", relay: null, relayMessageId: null });
  }
  await p.worker.drain();
  expect(sink.messages).toHaveLength(0);
});

it("a 4xx answer delays the message, retries on the written schedule and delivers when the server accepts", async () => {
  let refusals = 3;
  sink.refuse = (rcpt) => (rcpt === "busy@dest.test" && refusals-- > 0 ? { code: 451, text: "4.7.1 try later" } : undefined);
  const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "busy@dest.test", subject: "Hi", text: "x" });
  await p.worker.drain();
  expect(await status(res.body.id)).toBe("delayed");
  for (const delay of RETRY_DELAYS_MS.slice(0, 3)) {
    clock.advance(delay - 1);
    expect(await p.worker.drain()).toBe(0); // not before its time
    clock.advance(1);
    await p.worker.drain();
  }
  expect(await status(res.body.id)).toBe("delivered");
  expect(sink.messages).toHaveLength(1);
});

it("4xx until the schedule runs out is soft_bounced; never reaching a server is failed", async () => {
  sink.refuse = (rcpt) => (rcpt === "full@dest.test" ? { code: 452, text: "4.2.2 mailbox full" } : undefined);
  const soft = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "full@dest.test", subject: "Hi", text: "x" });
  const unreachable = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "x@void.test", subject: "Hi", text: "x" });
  await p.worker.drain();
  for (const delay of RETRY_DELAYS_MS) {
    clock.advance(delay);
    await p.worker.drain();
  }
  expect(await status(soft.body.id)).toBe("soft_bounced");
  expect(await status(unreachable.body.id)).toBe("failed");
  // A soft bounce does not suppress.
  sink.refuse = () => undefined;
  const later = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "full@dest.test", subject: "Hi", text: "x" });
  expect(later.body.status).toBe("sent");
  await p.worker.drain();
});
