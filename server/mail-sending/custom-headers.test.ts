// Custom headers a sender may not set, and long values as they leave on the wire (issue 28 item 9):
// identity, trace and verdict fields would otherwise go out under the platform's DKIM signature,
// and a value longer than a line went out as one line of any length. Real platform, real SMTP sink
// found as the recipient's MX through our DNS; the bytes the sink received are checked.
import { dkimVerify } from "mailauth";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";

let sink: SmtpSink;
let p: TestPlatform;
let t: Tenant;

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform(
    { relay: { name: "relay.platform.test", port: sink.port, allowLoopback: true } },
    { runWorker: false },
  );
  t = await p.newTenant("headers");
  await hostMailZone(p.services, "dest.test");
});
afterAll(async () => {
  await p?.stop();
  await sink?.close();
});
beforeEach(() => {
  sink.messages.length = 0;
});

const messageCount = () =>
  (p.db.prepare("SELECT COUNT(*) AS n FROM sent_messages").get() as { n: number }).n;
const base = () => ({
  from: `news@${t.domain}`,
  to: "bob@dest.test",
  subject: "Hi",
  text: "Hello",
});

/** Sends with these headers, relays, and answers what the sink received. */
async function deliveredWith(headers: Record<string, string>) {
  const res = await t.api("POST", "/v1/mail/send", { ...base(), headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await p.worker.drain();
  const received = sink.messages.find((m) => m.rcptTo.includes("bob@dest.test"))!;
  const head = received.raw.toString("latin1").split("\r\n\r\n")[0];
  return { raw: received.raw, headLines: head.split("\r\n") };
}

describe("reserved header names", () => {
  const reserved = [
    "Sender",
    "Reply-To",
    "reply-to",
    "Received",
    "X-Received",
    "Received-SPF",
    "Authentication-Results",
    "ARC-Seal",
    "ARC-Message-Signature",
    "ARC-Authentication-Results",
    "Resent-From",
    "Resent-Sender",
    "resent-message-id",
    "Disposition-Notification-To",
    "Disposition-Notification-Options",
    "Return-Receipt-To",
    "Errors-To",
    "DKIM-Signature",
    "DKIM-Filter",
    "DomainKey-Signature",
    "Delivered-To",
    "X-Original-To",
    "X-Original-From",
    "X-Spam-Status",
    "X-Spam-Flag",
    "X-MS-Exchange-Organization-SCL",
    "BIMI-Location",
    "BIMI-Indicator",
    // Refused before, still refused.
    "From",
    "To",
    "Subject",
    "Message-ID",
    "Date",
    "Return-Path",
    "MIME-Version",
    "Content-Type",
    "List-Unsubscribe",
  ];

  it.each(reserved)("%s: 400 naming the header, nothing stored", async (name) => {
    const before = messageCount();
    const res = await t.api("POST", "/v1/mail/send", {
      ...base(),
      headers: { "X-Fine": "yes", [name]: "someone@elsewhere.test" },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.details).toEqual([
      {
        path: `body.headers.${name}`,
        message: expect.stringMatching(/^is reserved \(.+\) and cannot be a custom header$/),
      },
    ]);
    expect(res.body.error).toContain(`body.headers.${name} is reserved`);
    expect(messageCount()).toBe(before);
  });

  it("Reply-To points to the replyTo field", async () => {
    const res = await t.api("POST", "/v1/mail/send", {
      ...base(),
      headers: { "Reply-To": "x@elsewhere.test" },
    });
    expect(res.body.details[0].message).toContain("replyTo");
  });

  it("a batch's shared reserved header is refused, and nothing of the batch is stored", async () => {
    const before = messageCount();
    const res = await t.api("POST", "/v1/mail/send-batch", {
      from: `news@${t.domain}`,
      subject: "Hi",
      text: "x",
      headers: { Sender: "ceo@bigbank.example" },
      messages: [{ to: "a@dest.test" }, { to: "b@dest.test" }],
    });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(["body.headers.Sender"]);
    expect(messageCount()).toBe(before);
  });

  it("headers a sender legitimately sets still go out, under the signature", async () => {
    const headers = {
      "X-Order": "A-17",
      "In-Reply-To": "<a@b.test>",
      References: "<a@b.test>",
      "Auto-Submitted": "auto-generated",
      "Feedback-ID": "c1:news:platform",
      "List-Id": "<news.headers.test>",
      Precedence: "bulk",
      "X-Originating-Team": "growth",
      "TLS-Required": "No",
    };
    const { raw } = await deliveredWith(headers);
    const parsed = await simpleParser(raw);
    expect(parsed.headers.get("x-order")).toBe("A-17");
    expect(parsed.headers.get("feedback-id")).toBe("c1:news:platform");
    const verdict = await dkimVerify(raw, {
      resolver: async (name: string) => p.services.resolver.resolveTxt(name),
    });
    expect(verdict.results[0].status.result).toBe("pass");
  });
});

describe("long header values", () => {
  it("a 2,000-character value of words is folded at whitespace: no line over 78, the value unfolds intact, DKIM passes", async () => {
    const value = Array.from({ length: 500 }, (_, i) => `w${i}`)
      .join(" ")
      .slice(0, 2000)
      .trim();
    expect(value.length).toBeGreaterThanOrEqual(1990);
    const { raw, headLines } = await deliveredWith({ "X-Campaign-Notes": value });
    const at = headLines.findIndex((l) => l.startsWith("X-Campaign-Notes:"));
    const continuation = headLines.slice(at + 1).findIndex((l) => !/^[ \t]/.test(l));
    const field = headLines.slice(at, at + 1 + continuation);
    expect(field.length).toBeGreaterThan(20);
    for (const line of headLines) expect(line.length, line).toBeLessThanOrEqual(998);
    for (const line of field) expect(line.length, line).toBeLessThanOrEqual(78);
    // RFC 5322 §2.2.3: unfolding removes the CRLFs and nothing else.
    expect(field.join("\r\n").replace(/\r\n/g, "")).toBe(`X-Campaign-Notes: ${value}`);
    const verdict = await dkimVerify(raw, {
      resolver: async (name: string) => p.services.resolver.resolveTxt(name),
    });
    expect(verdict.results[0].status.result).toBe("pass");
  });

  it("a long non-ASCII value leaves as encoded words within the line limit", async () => {
    const value = `Größe ${"ü".repeat(900)} Ende ${"y".repeat(600)}`;
    const { raw, headLines } = await deliveredWith({ "X-Note": value });
    for (const line of headLines) expect(line.length, line).toBeLessThanOrEqual(998);
    // RFC 2047 §6.2: whitespace between adjacent encoded words is not part of the value.
    const folded = (await simpleParser(raw)).headerLines
      .find((h) => h.key === "x-note")!
      .line.replace(/^X-Note:\s*/i, "");
    const words = [...folded.matchAll(/=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=/g)].map((m) =>
      Buffer.from(m[1], "base64"),
    );
    expect(folded.replace(/=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=|\s/g, "")).toBe("");
    expect(Buffer.concat(words).toString("utf8")).toBe(value);
  });

  it("a value with a run that cannot be folded into 998 is refused, naming the header; 997 still goes out", async () => {
    for (const run of [998, 2000]) {
      const before = messageCount();
      const res = await t.api("POST", "/v1/mail/send", {
        ...base(),
        headers: { "X-Token": "t".repeat(run) },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { path: "body.headers.X-Token", message: expect.stringContaining("998") },
      ]);
      expect(messageCount()).toBe(before);
    }
    const { headLines } = await deliveredWith({ "X-Token": "t".repeat(997) });
    expect(Math.max(...headLines.map((l) => l.length))).toBe(998);
  });

  it("custom headers over 32,000 characters together are refused", async () => {
    const words = (n: number) => Array.from({ length: n }, () => "abcdefghi").join(" ");
    const res = await t.api("POST", "/v1/mail/send", {
      ...base(),
      headers: { "X-A": words(1700), "X-B": words(1700) },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(["body.headers"]);
  });
});
