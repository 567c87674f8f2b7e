// Bounces and complaints through real SMTP on loopback: a message sent through the API and relayed
// to a sink; reports shaped like Postfix, Exchange, Sendmail and a feedback loop send them
// (samples/) delivered by swaks, a real SMTP client, to the message's VERP Return-Path at the
// platform's inbound listener; the message, the suppressions and the events checked after.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../test/harness.ts";
import { hostMailZone } from "../../test/mail-zone.ts";
import { sendTo } from "../../test/smtp.ts";
import { startSmtpSink, type SmtpSink } from "../../test/smtp-sink.ts";
import { handleFeedbackMail } from "./feedback-handler.ts";
import { messageIdFromReturnPath } from "../verp.ts";

let p: TestPlatform;
let t: Tenant;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "", port: sink.port, allowLoopback: true } }, { runWorker: false });
  t = await p.newTenant("fbshop");
  await hostMailZone(p.services, "recipient.test");
});
afterAll(async () => {
  await p?.stop();
  await sink?.close();
});

/** Sends through the API, relays to the sink; the message id and its envelope sender (VERP). */
async function sent(to: string, fields: Record<string, unknown> = {}) {
  const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to, subject: "Our sale", text: "Half price today.", ...fields });
  expect(res.status).toBe(200);
  await p.worker.drain();
  const relayed = sink.messages.findLast((m) => m.rcptTo.includes(to))!;
  return { id: res.body.id as string, verp: relayed.mailFrom };
}

/** A sample report addressed to this message's VERP address and recipient. */
function report(name: string, verp: string, recipient: string): string {
  return readFileSync(path.join(import.meta.dirname, "samples", `${name}.eml`), "utf8")
    .replaceAll("bounces+MSGTOKEN@shop.example", verp)
    .replace(/[a-z]+@recipient\.example/g, recipient)
    .replaceAll("shop.example", t.domain);
}

const run = promisify(execFile);
/** swaks: null sender, the report as DATA; answers the exit code and the SMTP dialogue. */
async function swaks(to: string, data: string): Promise<{ code: number; out: string }> {
  const args = ["--server", "127.0.0.1", "--port", String(p.smtp!.port), "--from", "<>", "--to", to, "--helo", "mx.recipient.test", "--data", "-", "--suppress-data"];
  const child = run("swaks", args, { encoding: "utf8" });
  child.child.stdin!.end(data.replace(/\r?\n/g, "\r\n"));
  try {
    const { stdout } = await child;
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

const statusOf = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body.message.status as string;
const eventsOf = (type: string, id: string) =>
  (p.db.prepare("SELECT payload FROM events WHERE project_id = ? AND type = ? ORDER BY rowid").all(t.projectId, type) as { payload: string }[])
    .map((r) => JSON.parse(r.payload).data)
    .filter((d) => d.messageId === id);
const suppressionsOf = (address: string) =>
  p.db.prepare("SELECT kind, scope FROM suppressions WHERE project_id = ? AND address = ? ORDER BY kind, scope").all(t.projectId, address);
const sendStatus = async (to: string, fields: Record<string, unknown>) =>
  (await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to, subject: "Again", text: "x", ...fields })).body.status;

describe("DSN (RFC 3464) at the VERP address", () => {
  it("a Postfix hard bounce: bounced, suppressed in both streams, mail.bounced; a redelivery changes nothing", async () => {
    const m = await sent("nobody@recipient.test");
    expect(m.verp).toMatch(new RegExp(`^bounces\\+${m.id}@${t.domain}$`));
    expect(await statusOf(m.id)).toBe("delivered");
    const dsn = report("dsn-hard-postfix", m.verp, "nobody@recipient.test");
    const first = await swaks(m.verp, dsn);
    expect(first.out).toMatch(/^<- +250 OK: message queued/m);
    expect(first.code).toBe(0);
    expect(await statusOf(m.id)).toBe("bounced");
    expect(eventsOf("mail.bounced", m.id)).toEqual([{
      messageId: m.id, to: "nobody@recipient.test", bounceType: "hard",
      reason: "550 5.1.1 <nobody@recipient.test>: Recipient address rejected: User unknown in local recipient table",
    }]);
    expect(suppressionsOf("nobody@recipient.test")).toEqual([{ kind: "hard", scope: "" }]);
    expect(await sendStatus("nobody@recipient.test", { stream: "transactional" })).toBe("suppressed");
    expect(await sendStatus("nobody@recipient.test", { stream: "marketing" })).toBe("suppressed");
    // At least once: the same DSN again is accepted and records nothing twice.
    expect((await swaks(m.verp, dsn)).code).toBe(0);
    expect(eventsOf("mail.bounced", m.id)).toHaveLength(1);
  });

  it("an Exchange soft bounce (failed, 4.2.2): soft_bounced, mail.bounced soft, no suppression", async () => {
    const m = await sent("full@recipient.test");
    const dsn = report("dsn-soft-exchange", m.verp, "full@recipient.test");
    // nodemailer as the reporting MTA this time, with the null sender.
    await sendTo(p.smtp!.port, { envelope: { from: "", to: [m.verp] }, raw: dsn });
    expect(await statusOf(m.id)).toBe("soft_bounced");
    expect(eventsOf("mail.bounced", m.id)).toEqual([{ messageId: m.id, to: "full@recipient.test", bounceType: "soft", reason: "452 4.2.2 Mailbox full" }]);
    expect(suppressionsOf("full@recipient.test")).toEqual([]);
    expect(await sendStatus("full@recipient.test", { stream: "marketing" })).toBe("sent");
  });

  it("a Sendmail delay warning, an out-of-office reply and a bounce of a Cc address are accepted and change nothing", async () => {
    const m = await sent("slow@recipient.test", { cc: ["other@recipient.test"] });
    for (const mail of [
      report("dsn-delayed-sendmail", m.verp, "slow@recipient.test"),
      report("plain-autoreply", m.verp, "slow@recipient.test"),
      report("dsn-hard-postfix", m.verp, "other@recipient.test"),
    ]) {
      const r = await swaks(m.verp, mail);
      expect(r.code).toBe(0);
    }
    expect(await statusOf(m.id)).toBe("delivered");
    expect(eventsOf("mail.bounced", m.id)).toEqual([]);
    expect(suppressionsOf("other@recipient.test")).toEqual([]);
  });
});

describe("ARF complaint (RFC 5965) at the VERP address", () => {
  it("a marketing message: complained, suppressed in marketing for its scope, mail.complained", async () => {
    const m = await sent("reader@recipient.test", { stream: "marketing", scope: "owner-1" });
    const r = await swaks(m.verp, report("arf-abuse", m.verp, "reader@recipient.test"));
    expect(r.code).toBe(0);
    expect(await statusOf(m.id)).toBe("complained");
    expect(eventsOf("mail.complained", m.id)).toEqual([{ messageId: m.id, to: "reader@recipient.test", scope: "owner-1" }]);
    expect(suppressionsOf("reader@recipient.test")).toEqual([{ kind: "marketing", scope: "owner-1" }]);
    expect(await sendStatus("reader@recipient.test", { stream: "marketing", scope: "owner-1" })).toBe("suppressed");
    expect(await sendStatus("reader@recipient.test", { stream: "marketing", scope: "owner-2" })).toBe("sent");
    expect(await sendStatus("reader@recipient.test", { stream: "transactional", scope: "owner-1" })).toBe("sent");
  });

  it("a not-spam report changes nothing", async () => {
    const m = await sent("happy@recipient.test", { stream: "marketing" });
    expect((await swaks(m.verp, report("arf-not-spam", m.verp, "happy@recipient.test"))).code).toBe(0);
    expect(await statusOf(m.id)).toBe("delivered");
    expect(eventsOf("mail.complained", m.id)).toEqual([]);
  });

  it("a report sent to a fixed feedback address is matched by its Original-Mail-From", async () => {
    const m = await sent("fixed@recipient.test", { stream: "marketing" });
    const raw = Buffer.from(report("arf-abuse", m.verp, "fixed@recipient.test").replace(`To: <${m.verp}>`, `To: <fbl@${t.domain}>`));
    const outcome = await handleFeedbackMail({ feedback: p.services.mailFeedback, messageIdOfReturnPath: messageIdFromReturnPath }, { raw, recipients: [`fbl@${t.domain}`] });
    expect(outcome).toEqual({ action: "complained", messageId: m.id, reason: "abuse" });
    expect(await statusOf(m.id)).toBe("complained");
  });
});

describe("who may report", () => {
  it("a VERP address naming no message, or a message of another domain, is refused at RCPT TO", async () => {
    const m = await sent("someone@recipient.test");
    for (const rcpt of [`bounces+msg_000000000000@${t.domain}`, m.verp.replace(`@${t.domain}`, "@recipient.test")]) {
      const r = await swaks(rcpt, report("dsn-hard-postfix", rcpt, "someone@recipient.test"));
      expect(r.code, rcpt).not.toBe(0);
      expect(r.out).toMatch(/<\*\* 550 /);
    }
    expect(await statusOf(m.id)).toBe("delivered");
  });
});
