// Bounces and complaints through real SMTP on loopback: a message sent through the API and relayed
// to a sink; reports shaped like Postfix, Exchange, Sendmail and a feedback loop send them
// (samples/) delivered by swaks, a real SMTP client, to the message's VERP Return-Path at the
// platform's inbound listener; the message, the suppressions and the events checked after. Forged
// reports (issue 28 item 5: a guessed or unsigned address, a wrong MAC, another recipient's or
// another project's address, a report too late to be plausible) must change none of them.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../test/harness.ts";
import { hostMailZone } from "../../test/mail-zone.ts";
import { sendTo } from "../../test/smtp.ts";
import { startSmtpSink, type SmtpSink } from "../../test/smtp-sink.ts";
import { manualClock } from "../../jobs/clock.ts";
import { DSN_WINDOW_AFTER_DELIVERY_MS } from "../message-repository.ts";
import { handleFeedbackMail } from "./feedback-handler.ts";

let p: TestPlatform;
let t: Tenant;
let other: Tenant;
let sink: SmtpSink;
const clock = manualClock(Date.UTC(2026, 10, 23, 11));

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "", port: sink.port, allowLoopback: true } }, { clock, runWorker: false });
  t = await p.newTenant("fbshop");
  other = await p.newTenant("fbother");
  await hostMailZone(p.services, "recipient.test");
});
afterAll(async () => {
  await p?.stop();
  await sink?.close();
});

/** Sends through the API, relays to the sink; the message id and its envelope sender (VERP). */
async function sent(to: string, fields: Record<string, unknown> = {}, tenant = t) {
  const res = await tenant.api("POST", "/v1/mail/send", { from: `news@${tenant.domain}`, to, subject: "Our sale", text: "Half price today.", ...fields });
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
/** Everything a report could change about a message: its status, its recipient's suppressions in any project, its events. */
const stateOf = async (id: string, to: string) => ({
  status: (p.db.prepare("SELECT status FROM sent_messages WHERE id = ?").get(id) as { status: string }).status,
  suppressions: p.db.prepare("SELECT project_id, kind, scope FROM suppressions WHERE address = ? ORDER BY project_id, kind").all(to),
  events: (p.db.prepare("SELECT type, payload FROM events WHERE type IN ('mail.bounced', 'mail.complained') ORDER BY rowid").all() as { type: string; payload: string }[])
    .filter((e) => JSON.parse(e.payload).data.messageId === id).length,
});
const sendStatus = async (to: string, fields: Record<string, unknown>) =>
  (await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to, subject: "Again", text: "x", ...fields })).body.status;

describe("DSN (RFC 3464) at the VERP address", () => {
  it("a Postfix hard bounce: bounced, suppressed in both streams, mail.bounced; a redelivery changes nothing", async () => {
    const m = await sent("nobody@recipient.test");
    // T6: the message id and an 80-bit MAC in the local part.
    expect(m.verp).toMatch(new RegExp(`^bounces\\+${m.id}\\.[0-9a-hjkmnp-tv-z]{16}@${t.domain}$`));
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
    const outcome = await handleFeedbackMail({ feedback: p.services.mailFeedback, returnPaths: p.services.returnPaths }, { raw, recipients: [`fbl@${t.domain}`] });
    expect(outcome).toEqual({ action: "complained", messageId: m.id, reason: "abuse" });
    expect(await statusOf(m.id)).toBe("complained");
  });

  it("a report to a fixed address whose Original-Mail-From is not a signed VERP address changes nothing", async () => {
    const m = await sent("fixed2@recipient.test", { stream: "marketing" });
    const before = await stateOf(m.id, "fixed2@recipient.test");
    for (const forged of [`bounces+${m.id}@${t.domain}`, `bounces+${m.id}.0123456789abcdef@${t.domain}`, m.verp.replace(`@${t.domain}`, `@${other.domain}`)]) {
      const raw = Buffer.from(report("arf-abuse", forged, "fixed2@recipient.test").replace(`To: <${forged}>`, `To: <fbl@${t.domain}>`));
      const outcome = await handleFeedbackMail({ feedback: p.services.mailFeedback, returnPaths: p.services.returnPaths }, { raw, recipients: [`fbl@${t.domain}`] });
      expect(outcome, forged).toEqual({ action: "ignored", reason: "no signed VERP address names a message" });
    }
    expect(await stateOf(m.id, "fixed2@recipient.test")).toEqual(before);
  });
});

/** Base32 filler of the MAC's length, for guessed MACs. */
const noise = (n: number) => Array.from({ length: n }, (_, i) => "0123456789abcdefghjkmnpqrstvwxyz"[(i * 7 + n) % 32]).join("");

describe("forged reports change nothing (issue 28 item 5)", () => {
  it("an address that is not the signed one is refused at RCPT TO: the unsigned form, a guessed id, a wrong or another message's MAC, another domain or project", async () => {
    const m = await sent("victim@recipient.test", { stream: "marketing" });
    const second = await sent("second@recipient.test");
    const foreign = await sent("victim@recipient.test", {}, other);
    const local = (verp: string) => verp.slice(0, verp.lastIndexOf("@"));
    const macOf = (verp: string) => local(verp).split(".").pop()!;
    const before = await stateOf(m.id, "victim@recipient.test");
    const forged = [
      // The form of before T6, which every copy's Message-ID gave away: refused outright.
      `bounces+${m.id}@${t.domain}`,
      `BOUNCES+${m.id.toUpperCase()}@${t.domain.toUpperCase()}`,
      `bounces+msg_000000000000.${noise(16)}@${t.domain}`,
      `bounces+${m.id}.${noise(16)}@${t.domain}`,
      `bounces+${m.id}.${macOf(m.verp).slice(0, 15)}@${t.domain}`,
      `bounces+${m.id}.${macOf(second.verp)}@${t.domain}`,
      `bounces+${m.id}.c.${macOf(m.verp)}@${t.domain}`,
      `bounces+${m.id}.x.${macOf(m.verp)}@${t.domain}`,
      // The genuine address on another domain: on the recipient's, on another project's.
      m.verp.replace(`@${t.domain}`, "@recipient.test"),
      m.verp.replace(`@${t.domain}`, `@${other.domain}`),
      // Another project's genuine address moved onto this project's domain, and its MAC on this message.
      foreign.verp.replace(`@${other.domain}`, `@${t.domain}`),
      `bounces+${m.id}.${macOf(foreign.verp)}@${t.domain}`,
    ];
    for (const rcpt of forged) {
      for (const kind of ["dsn-hard-postfix", "arf-abuse"]) {
        const r = await swaks(rcpt, report(kind, rcpt, "victim@recipient.test"));
        expect(r.code, rcpt).not.toBe(0);
        expect(r.out, rcpt).toMatch(/<\*\* 550 /);
      }
    }
    expect(await stateOf(m.id, "victim@recipient.test")).toEqual(before);
    expect(before).toEqual({ status: "delivered", suppressions: [], events: 0 });
    expect(await stateOf(foreign.id, "victim@recipient.test")).toEqual({ status: "delivered", suppressions: [], events: 0 });
  });

  it("a Cc or Bcc recipient's copy carries an address of its own; reports there change nothing about the To recipient", async () => {
    const m = await sent("main@recipient.test", { stream: "marketing", cc: ["nosy@recipient.test"], bcc: ["hidden@recipient.test"] });
    const copies = sink.messages.filter((x) => x.rcptTo.includes("nosy@recipient.test") || x.rcptTo.includes("hidden@recipient.test"));
    expect(copies.length).toBeGreaterThan(0);
    const copyVerp = copies[0].mailFrom;
    expect(copyVerp).toMatch(new RegExp(`^bounces\\+${m.id}\\.c\\.[0-9a-hjkmnp-tv-z]{16}@${t.domain}$`));
    expect(copyVerp).not.toBe(m.verp);
    for (const c of copies) expect(c.mailFrom).toBe(copyVerp);
    const before = await stateOf(m.id, "main@recipient.test");
    // Accepted (a real MTA's report on a copy must not bounce back), recorded nowhere.
    for (const kind of ["dsn-hard-postfix", "arf-abuse"]) {
      for (const named of ["main@recipient.test", "nosy@recipient.test"]) {
        const r = await swaks(copyVerp, report(kind, copyVerp, named));
        expect(r.code).toBe(0);
      }
    }
    expect(await stateOf(m.id, "main@recipient.test")).toEqual(before);
    expect(suppressionsOf("nosy@recipient.test")).toEqual([]);
    expect(before).toMatchObject({ status: "delivered", suppressions: [], events: 0 });
  });

  it("a DSN at the To recipient's address that names nobody or someone else changes nothing", async () => {
    const m = await sent("named@recipient.test");
    const before = await stateOf(m.id, "named@recipient.test");
    const nobody = report("dsn-hard-postfix", m.verp, "named@recipient.test").replace(/^(Final|Original)-Recipient:.*\r?\n/gm, "");
    expect(nobody).not.toMatch(/Final-Recipient/);
    for (const dsn of [nobody, report("dsn-hard-postfix", m.verp, "someone-else@recipient.test")]) expect((await swaks(m.verp, dsn)).code).toBe(0);
    expect(await stateOf(m.id, "named@recipient.test")).toEqual(before);
  });

  it("a DSN after delivered bounces within the window (T7) and changes nothing after it", async () => {
    const inside = await sent("gateway@recipient.test");
    const late = await sent("oldnews@recipient.test");
    clock.advance(DSN_WINDOW_AFTER_DELIVERY_MS);
    expect((await swaks(inside.verp, report("dsn-hard-postfix", inside.verp, "gateway@recipient.test"))).code).toBe(0);
    expect(await statusOf(inside.id)).toBe("bounced");
    clock.advance(1);
    const before = await stateOf(late.id, "oldnews@recipient.test");
    for (const kind of ["dsn-hard-postfix", "dsn-soft-exchange"]) expect((await swaks(late.verp, report(kind, late.verp, "oldnews@recipient.test"))).code).toBe(0);
    expect(await stateOf(late.id, "oldnews@recipient.test")).toEqual(before);
    expect(before).toMatchObject({ status: "delivered", suppressions: [], events: 0 });
    // A complaint has no window: a recipient may read, and report, the message months later.
    expect((await swaks(late.verp, report("arf-abuse", late.verp, "oldnews@recipient.test"))).code).toBe(0);
    expect(await statusOf(late.id)).toBe("complained");
  });
});
