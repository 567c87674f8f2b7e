// The listener over real SMTP on loopback: who is accepted, what is stored and when, the
// headers it adds, STARTTLS and SIZE, group fan-out, routes, and mail.received in the same
// transaction as the message.
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { rawSmtp, sendTo, smtpTransport } from "../test/smtp.ts";
import type { InboundMessage } from "./routes.ts";

let p: TestPlatform;
let t: Tenant;
let port: number;

beforeAll(async () => {
  p = await startTestPlatform({ allowHttpLoopbackWebhooks: true });
  port = p.smtp!.port;
  t = await p.newTenant("inbound");
  for (const name of ["alice", "bob", "carol"]) await t.api("POST", "/v1/mailboxes", { name, domain: t.domain, password: "correct horse" });
  const group = await t.api("POST", "/v1/groups", { name: "team", domain: t.domain });
  for (const name of ["alice", "bob"]) await t.api("POST", `/v1/groups/${group.body.id}/members`, { mailbox: `${name}@${t.domain}` });
});
afterAll(() => p.stop());

const copiesOf = (subject: string) =>
  p.db.prepare("SELECT mb.email, mm.uid FROM mailbox_messages mm JOIN mailboxes mb ON mb.id = mm.mailbox_id WHERE mm.subject = ? ORDER BY mb.email").all(subject) as { email: string; uid: number }[];

describe("recipients", () => {
  it("accepts a mailbox of a connected domain and stores the message before answering 250", async () => {
    const info = await sendTo(port, { from: "sender@outside.test", to: `alice@${t.domain}`, subject: "hello alice", text: "Hi!" });
    expect(info.accepted).toEqual([`alice@${t.domain}`]);
    expect(info.response).toMatch(/^250 /);
    // No waiting: the 250 came after the commit.
    expect(copiesOf("hello alice")).toEqual([{ email: `alice@${t.domain}`, uid: expect.any(Number) }]);
  });

  it("refuses an unknown address on a connected domain with 550 5.1.1 and any other domain as relay", async () => {
    const replies = await rawSmtp(port, [
      "EHLO client.test\r\n",
      "MAIL FROM:<s@outside.test>\r\n",
      `RCPT TO:<nobody@${t.domain}>\r\n`,
      "RCPT TO:<someone@gmail.example>\r\n",
      "QUIT\r\n",
    ]);
    expect(replies).toMatch(new RegExp(`^550 5\\.1\\.1 <nobody@${t.domain.replace(".", "\\.")}>`, "m"));
    expect(replies).toMatch(/^550 5\.7\.1 <someone@gmail\.example>: relay access denied/m);
  });

  it("copies a group's message into each member's mailbox once, with usedBytes counting it", async () => {
    const before = (await t.api("GET", "/v1/mailboxes")).body.mailboxes as { email: string; usedBytes: number }[];
    // alice is a member and a direct recipient: still one copy.
    await sendTo(port, { from: "s@outside.test", to: [`team@${t.domain}`, `alice@${t.domain}`], subject: "team news", text: "to the team" });
    expect(copiesOf("team news").map((c) => c.email)).toEqual([`alice@${t.domain}`, `bob@${t.domain}`]);
    const size = (p.db.prepare("SELECT c.size FROM message_contents c JOIN mailbox_messages m ON m.content_id = c.id WHERE m.subject = 'team news'").get() as { size: number }).size;
    const after = (await t.api("GET", "/v1/mailboxes")).body.mailboxes as { email: string; usedBytes: number }[];
    const used = (list: typeof before, email: string) => list.find((m) => m.email === email)!.usedBytes;
    expect(used(after, `alice@${t.domain}`) - used(before, `alice@${t.domain}`)).toBe(size);
    expect(used(after, `bob@${t.domain}`) - used(before, `bob@${t.domain}`)).toBe(size);
    expect(used(after, `carol@${t.domain}`)).toBe(used(before, `carol@${t.domain}`));
  });
});

describe("what is stored", () => {
  it("adds Received and Authentication-Results (SPF, DKIM, DMARC) on top of the message as sent", async () => {
    await sendTo(port, { from: "s@outside.test", to: `carol@${t.domain}`, subject: "traced", text: "body", messageId: "<traced-1@outside.test>" });
    const row = p.db.prepare("SELECT c.raw FROM message_contents c JOIN mailbox_messages m ON m.content_id = c.id WHERE m.subject = 'traced'").get() as { raw: Uint8Array };
    const raw = Buffer.from(row.raw).toString("utf8");
    expect(raw).toMatch(/^Received: from \S+ \(\[127\.0\.0\.1\]\)\r\n\tby mx\.platform\.test with ESMTPS id /);
    expect(raw).toMatch(/^Authentication-Results: mx\.platform\.test;[\s\S]*dkim=none[\s\S]*spf=\w+[\s\S]*dmarc=\w+/m);
    expect(raw).toContain("Message-ID: <traced-1@outside.test>");
    expect(raw).toMatch(/\r\n\r\nbody/);
  });

  it("stores a large message byte for byte (its bytes move to the writer thread rather than being copied)", async () => {
    const body = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\r\n");
    const message = `From: s@outside.test\r\nTo: carol@${t.domain}\r\nSubject: large\r\nMessage-ID: <large-1@outside.test>\r\n\r\n${body}\r\n`;
    const usedBefore = (p.db.prepare("SELECT used_bytes FROM mailboxes WHERE email = ?").get(`carol@${t.domain}`) as { used_bytes: number }).used_bytes;
    await rawSmtp(port, ["EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<carol@${t.domain}>\r\n`, "DATA\r\n", message + ".\r\n", "QUIT\r\n"]);
    const row = p.db.prepare("SELECT c.raw, c.size FROM message_contents c JOIN mailbox_messages m ON m.content_id = c.id WHERE m.subject = 'large'").get() as { raw: Uint8Array; size: number };
    const raw = Buffer.from(row.raw);
    expect(raw.length).toBeGreaterThan(25_000);
    expect(raw.toString("utf8").endsWith(message)).toBe(true);
    expect(row.size).toBe(raw.length);
    const usedAfter = (p.db.prepare("SELECT used_bytes FROM mailboxes WHERE email = ?").get(`carol@${t.domain}`) as { used_bytes: number }).used_bytes;
    expect(usedAfter - usedBefore).toBe(raw.length);
  });

  it("renames an Authentication-Results that claims to be ours, and gives a message without Message-ID one", async () => {
    const message = "From: s@outside.test\r\nTo: carol@" + t.domain + "\r\nSubject: forged\r\nAuthentication-Results: mx.platform.test; spf=pass; dkim=pass; dmarc=pass\r\n\r\nhi\r\n";
    await rawSmtp(port, ["EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<carol@${t.domain}>\r\n`, "DATA\r\n", message + ".\r\n", "QUIT\r\n"]);
    const row = p.db.prepare("SELECT c.raw, m.rfc_message_id FROM message_contents c JOIN mailbox_messages m ON m.content_id = c.id WHERE m.subject = 'forged'").get() as { raw: Uint8Array; rfc_message_id: string };
    const raw = Buffer.from(row.raw).toString("utf8");
    expect(raw).toContain("X-Untrusted-Authentication-Results: mx.platform.test; spf=pass; dkim=pass; dmarc=pass");
    expect(raw.match(/^Authentication-Results: mx\.platform\.test/gm)).toHaveLength(1);
    expect(row.rfc_message_id).toMatch(/^[0-9a-f]{24}@mx\.platform\.test$/);
    expect(raw).toContain(`Message-ID: <${row.rfc_message_id}>`);
  });

  it("offers STARTTLS and SIZE 25 MB", async () => {
    const replies = await rawSmtp(port, ["EHLO c.test\r\n", "QUIT\r\n"]);
    expect(replies).toMatch(/^250-STARTTLS/m);
    expect(replies).toMatch(new RegExp(`^250[- ]SIZE ${25 * 1024 * 1024}`, "m"));
    expect(replies).not.toMatch(/AUTH/);
  });

  it("emits mail.received in the same transaction as each copy", async () => {
    const before = (p.db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'mail.received'").get() as { n: number }).n;
    await sendTo(port, { from: "Sender <s@outside.test>", to: `team@${t.domain}`, subject: "evented", text: "x" });
    const events = (p.db.prepare("SELECT project_id, payload FROM events WHERE type = 'mail.received'").all() as { project_id: string; payload: string }[]).slice(before);
    expect(events).toHaveLength(2);
    const data = events.map((e) => JSON.parse(e.payload).data).sort((a, b) => a.mailbox.localeCompare(b.mailbox));
    expect(data[0]).toEqual({
      mailboxId: expect.stringMatching(/^mbx_/),
      mailbox: `alice@${t.domain}`,
      messageId: expect.stringMatching(/^\d+$/),
      rfcMessageId: expect.any(String),
      from: [{ email: "s@outside.test", name: "Sender" }],
      to: [{ email: `team@${t.domain}` }],
      subject: "evented",
      receivedAt: expect.any(String),
      hasAttachment: false,
      quarantined: false,
    });
    expect(events.every((e) => e.project_id === t.projectId)).toBe(true);
  });
});

describe("routes", () => {
  it("hands a routed address's message to its handler, not to a mailbox, on any domain", async () => {
    const seen: InboundMessage[] = [];
    const unregister = p.services.inbound.route((rcpt) => rcpt.startsWith("bounce+"), async (m) => void seen.push(m));
    try {
      const info = await sendTo(port, { envelope: { from: "", to: ["bounce+abc@feedback.example", `carol@${t.domain}`] }, from: "MAILER-DAEMON@far.test", to: "x@far.test", subject: "bounced", text: "550 user unknown" });
      expect(info.accepted).toHaveLength(2);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ mailFrom: "", recipients: ["bounce+abc@feedback.example"], remoteAddress: "127.0.0.1" });
      expect(seen[0].parsed.subject).toBe("bounced");
      expect(seen[0].raw.toString()).toMatch(/^Received: /);
      expect(copiesOf("bounced").map((c) => c.email)).toEqual([`carol@${t.domain}`]);
    } finally {
      unregister();
    }
  });

  it("a failing handler makes the sender retry (451) and stores nothing", async () => {
    const unregister = p.services.inbound.route((rcpt) => rcpt === `fb@${t.domain}`, async () => {
      throw new Error("feedback store down");
    });
    try {
      const transport = smtpTransport(port);
      await expect(transport.sendMail({ from: "s@outside.test", to: [`fb@${t.domain}`, `carol@${t.domain}`], subject: "retry me", text: "x" })).rejects.toMatchObject({ responseCode: 451 });
      transport.close();
      expect(copiesOf("retry me")).toEqual([]);
    } finally {
      unregister();
    }
  });
});

describe("mail.received to a webhook", () => {
  it("is logged for the subscriber in the message's transaction and reaches a loopback receiver, signed", async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = (await t.api("POST", "/v1/webhooks", { url, events: ["mail.received"] })).body;
      await sendTo(port, { from: "s@outside.test", to: `carol@${t.domain}`, subject: "hooked", text: "x" });
      // No waiting: the delivery row was written with the message, before the 250.
      const log = (await t.api("GET", `/v1/webhooks/${hook.id}/deliveries`)).body.deliveries as { id: number; event: string; payload: string }[];
      expect(log).toHaveLength(1);
      expect(log[0].event).toBe("mail.received");
      expect(JSON.parse(log[0].payload)).toMatchObject({ type: "mail.received", data: { mailbox: `carol@${t.domain}`, subject: "hooked" } });
      // Sent now through the API's redelivery (the scheduled attempt is the delivery engine's).
      const res = await t.api("POST", `/v1/webhooks/${hook.id}/deliveries/${log[0].id}/redeliver`);
      expect(res.body).toEqual({ status: "delivered", httpCode: 204 });
      const got = received.find((r) => r.body === log[0].payload)!;
      expect(got.headers["x-platform-event"]).toBe("mail.received");
      expect(got.headers["x-platform-signature"]).toBe(`sha256=${createHmac("sha256", hook.secret).update(log[0].payload).digest("hex")}`);
    } finally {
      receiver.close();
    }
  });
});
