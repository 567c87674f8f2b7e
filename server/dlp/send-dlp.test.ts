// DLP on the send path through real HTTP (seed §4 rules 1 and 2): block refuses a single send or
// the whole batch with 422 and queues nothing; warn sends and answers `warnings` and `dlp` (with
// message numbers in a batch); every finding is in /v1/mail/dlp-events and a mail.dlp event.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import * as doc from "./test/documents.ts";

let p: TestPlatform;
let t: Tenant;
const clock = manualClock();

beforeAll(async () => {
  p = await startTestPlatform({}, { clock, runWorker: false });
  t = await p.newTenant("dlpsend");
  await hostMailZone(p.services, "dest.test");
});
afterAll(() => p.stop());

const count = (table: string) => (p.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
const dlpEvents = () => p.db.prepare("SELECT payload FROM events WHERE type = 'mail.dlp' ORDER BY rowid").all().map((r) => JSON.parse((r as { payload: string }).payload).data);
const b64 = (b: Buffer) => b.toString("base64");

async function pdfWithCard() {
  return b64(await doc.pdf(["Card 4111 1111 1111 1111 exp 12/27"]));
}

describe("DLP block mode", () => {
  it("refuses a single send with a finding in a PDF: 422 dlp_blocked, nothing queued, the finding logged", async () => {
    await p.services.projects.setDlpPolicy(t.projectId, "block", false);
    const before = [count("sent_messages"), count("jobs"), dlpEvents().length];
    const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "bob@dest.test", subject: "Invoice", text: "See attached", attachments: [{ filename: "invoice.pdf", content: await pdfWithCard() }] });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("dlp_blocked");
    expect(res.body.error).toMatch(/^dlp: .*forbidden by the project policy/);
    expect([count("sent_messages"), count("jobs")]).toEqual(before.slice(0, 2));
    const finding = { type: "card", masked: "4111 **** **** 1111", where: "attachment:invoice.pdf", full: true, mass: false, count: 1 };
    expect(dlpEvents().slice(before[2])).toEqual([{ messageId: null, action: "blocked", from: `news@${t.domain}`, to: "bob@dest.test", finding }]);
    const log = await t.api("GET", "/v1/mail/dlp-events?limit=1");
    expect(log.body.events[0]).toMatchObject({ action: "blocked", messageId: null, finding });
  });

  it("refuses the whole batch when one message has a finding", async () => {
    const before = [count("sent_messages"), count("jobs")];
    const res = await t.api("POST", "/v1/mail/send-batch", {
      from: `news@${t.domain}`, subject: "Hi",
      messages: [{ to: "a@dest.test" }, { to: "b@dest.test", subject: "Your IBAN GB82 WEST 1234 5698 7654 32" }],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^dlp: /);
    expect([count("sent_messages"), count("jobs")]).toEqual(before);
  });

  it("lets a clean message and an order number through", async () => {
    const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "bob@dest.test", subject: "Order 4111 1111 1111 1112 shipped", text: "Thanks" });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toBeUndefined();
  });
});

describe("DLP warn mode", () => {
  it("sends a single message and answers warnings and dlp", async () => {
    await p.services.projects.setDlpPolicy(t.projectId, "warn", false);
    const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "bob@dest.test", subject: "CONFIDENTIAL", text: "password: Winter2025!" });
    expect(res.status).toBe(200);
    expect(res.body.dlp).toEqual([
      { type: "confidential", masked: "CONFIDENTIAL", where: "subject", full: false, mass: false, count: 1 },
      { type: "secret", masked: "password ********", where: "text", full: false, mass: false, count: 1 },
    ]);
    expect(res.body.warnings).toEqual(["DLP: 2 findings: confidential in subject, secret in text"]);
    const logged = await t.api("GET", "/v1/mail/dlp-events?limit=2");
    expect(logged.body.events.map((e: { messageId: string; action: string }) => [e.messageId, e.action])).toEqual([[res.body.id, "warned"], [res.body.id, "warned"]]);
  });

  it("sends a batch and numbers the affected messages", async () => {
    const before = count("sent_messages");
    const res = await t.api("POST", "/v1/mail/send-batch", {
      from: `news@${t.domain}`, subject: "Hi",
      messages: [{ to: "a@dest.test" }, { to: "b@dest.test", subject: "VÖEN: 1401555071" }, { to: "c@dest.test", attachments: [{ filename: "c.pdf", content: await pdfWithCard() }] }],
    });
    expect(res.status).toBe(200);
    expect(count("sent_messages")).toBe(before + 3);
    expect(res.body.dlp).toEqual([
      { type: "voen", masked: "14******71", where: "subject", full: false, mass: false, count: 1, message: 1 },
      { type: "card", masked: "4111 **** **** 1111", where: "attachment:c.pdf", full: true, mass: false, count: 1, message: 2 },
    ]);
    expect(res.body.warnings).toEqual(["message 1: DLP: 1 finding: voen in subject", "message 2: DLP: 1 finding: card in attachment:c.pdf"]);
  });
});
