// Mail to a mailbox hosted on this deployment is delivered locally (issue 27 item 1, decision H1):
// the relay's MX path is unusable here on purpose (the default relay: port 25, no loopback, and
// a mail host that resolves nowhere, as on a fresh `npm start`), so only the local transport can
// deliver. Each send goes through the inbound path a remote MX takes: our Received line,
// SPF/DKIM/DMARC verdicts, the per-mailbox store and `mail.received`, then `delivered` and
// `mail.delivered`. On SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { startReceiver, type TestReceiver } from "../test/receiver.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

describe.each(backends)("local delivery on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let home: Tenant;
  let other: Tenant;
  let receiver: TestReceiver;
  let mailboxId: string;

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    receiver = await startReceiver(() => 204);
    p = await startTestPlatform({ databaseUrl, allowHttpLoopbackWebhooks: true }, { runWorker: false });
    home = await p.newTenant(`home-${backend}`);
    other = await p.newTenant(`other-${backend}`);
    for (const t of [home, other]) {
      const hook = await t.api("POST", "/v1/webhooks", { url: `${receiver.url}/${t.projectId}`, events: ["mail.delivered", "mail.received", "mail.bounced"] });
      expect(hook.status).toBe(200);
    }
    const mailbox = await home.api("POST", "/v1/mailboxes", { name: "alice", domain: home.domain, password: "correct horse battery" });
    expect(mailbox.status).toBe(200);
    mailboxId = mailbox.body.id;
  });
  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
    await database?.stop();
  });

  /** Webhook events of one project, as its receiver path got them. */
  const eventsOf = (t: Tenant) =>
    receiver.received.filter((r) => r.path.endsWith(`/${t.projectId}`)).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

  async function deliver(t: Tenant, to: string, subject: string): Promise<{ id: string; status: string; detail: any }> {
    const sent = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to, subject, text: `Body of ${subject}` });
    expect(sent.status).toBe(200);
    await p.worker.drain();
    const detail = (await t.api("GET", `/v1/mail/messages/${sent.body.id}`)).body;
    return { id: sent.body.id, status: detail.message.status, detail };
  }

  async function stored(subject: string) {
    const list = await home.api("GET", `/v1/mailboxes/${mailboxId}/messages`);
    const summary = list.body.messages.find((m: { subject: string }) => m.subject === subject);
    expect(summary, JSON.stringify(list.body)).toBeDefined();
    return (await home.api("GET", `/v1/mailboxes/${mailboxId}/messages/${summary.id}`)).body;
  }
  const header = (message: { headers: { name: string; value: string }[] }, name: string) =>
    message.headers.filter((h) => h.name.toLowerCase() === name).map((h) => h.value);

  it("delivers a project's mail to its own mailbox without an MX, signed, traced and stored, with both events", async () => {
    const m = await deliver(home, `alice@${home.domain}`, "To myself");
    expect(m.status).toBe("delivered");
    const message = await stored("To myself");
    expect(message.text.trim()).toBe("Body of To myself");
    expect(header(message, "received")[0]).toMatch(/^from \S+ \(\[127\.0\.0\.1\]\)\s+by /);
    const results = header(message, "authentication-results").join("\n");
    expect(results).toContain(`dkim=pass header.i=@${home.domain}`);
    expect(results).toMatch(/dmarc=pass/);
    expect(header(message, "dkim-signature")[0]).toContain(`d=${home.domain}`);

    await receiver.waitFor(2);
    const events = eventsOf(home);
    expect(events.find((e) => e.type === "mail.delivered")?.data).toMatchObject({ messageId: m.id, to: `alice@${home.domain}` });
    expect(events.find((e) => e.type === "mail.received")?.data).toMatchObject({ mailboxId, subject: "To myself" });
  });

  it("delivers mail between two tenants the same way, with the sender's own signature verified", async () => {
    const m = await deliver(other, `alice@${home.domain}`, "From a neighbour");
    expect(m.status).toBe("delivered");
    const message = await stored("From a neighbour");
    const results = header(message, "authentication-results").join("\n");
    expect(results).toContain(`dkim=pass header.i=@${other.domain}`);
    expect(results).toMatch(new RegExp(`dmarc=pass[^;]*header\\.from=${other.domain.replace(".", "\\.")}`));
    await receiver.waitFor(4);
    expect(eventsOf(other).map((e) => e.type)).toEqual(["mail.delivered"]);
    expect(eventsOf(home).filter((e) => e.type === "mail.received").map((e) => e.data.subject)).toContain("From a neighbour");
  });

  it("bounces mail to an address of a hosted domain that has no mailbox, as the MX answers it (5.1.1), and suppresses it", async () => {
    const m = await deliver(other, `nobody@${home.domain}`, "To nobody");
    expect(m.status).toBe("bounced");
    await receiver.waitFor(5);
    expect(eventsOf(other).find((e) => e.type === "mail.bounced")?.data).toMatchObject({ messageId: m.id, bounceType: "hard", reason: expect.stringContaining("5.1.1") });
    const again = await other.api("POST", "/v1/mail/send", { from: `news@${other.domain}`, to: `nobody@${home.domain}`, subject: "Again", text: "x" });
    expect(again.body.status).toBe("suppressed");
  });
});
