// Who owns a mail domain (decisions O1-O5), through real HTTP, SMTP and the server's own DNS
// server as the resolver. "The world's DNS" of a domain hosted elsewhere is played by a zone on
// our DNS server that no project holds: its registrant publishes a project's verification TXT
// there, as they would at any DNS provider. The clock is manual and the worker is driven, so the
// periodic re-check runs exactly when the test moves time.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { validateRecord } from "../dns/validate-record.ts";
import { manualClock } from "../jobs/clock.ts";
import { rawSmtp } from "../test/smtp.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";


const HOUR = 3_600_000;
// The job kind of the periodic check (verification-jobs.ts), spelled out so this file runs against older code too.
const VERIFY_JOB = "maildomain.verify";
let sink: SmtpSink;
let p: TestPlatform;
let a: Tenant;
let b: Tenant;
const clock = manualClock();

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "relay.platform.test", port: sink.port, allowLoopback: true } }, { clock, runWorker: false });
  a = await p.newTenant("owner-a");
  b = await p.newTenant("owner-b");
  await hostMailZone(p.services, "dest.test");
});
afterAll(async () => {
  await p.stop();
  await sink.close();
});
beforeEach(() => {
  sink.messages.length = 0;
});

/** A zone on our DNS server bound to no project: the domain's DNS at "some provider". */
async function worldZone(name: string): Promise<void> {
  await p.services.zones.createZone({ name, projectId: null });
}

/** The registrant publishes a TXT at the zone's apex; answers the record id to take it down again. */
async function publishTxt(zone: string, data: string): Promise<string> {
  const checked = validateRecord({ type: "TXT", name: "@", data }, zone);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return (await p.services.zones.insertRecord(zone, checked.record)).id;
}

const verificationOf = (body: { records: { purpose: string; data: string }[] }) => body.records.find((r) => r.purpose === "verification")!.data;
const stored = (t: Tenant, name: string) => p.services.mailDomains.getByName(t.projectId, name);
const count = (sql: string) => (p.db.prepare(sql).get() as { n: number }).n;
const messageCount = () => count("SELECT COUNT(*) AS n FROM sent_messages");
const relayJobs = () => count("SELECT COUNT(*) AS n FROM jobs WHERE kind LIKE 'mail.%'");
const send = (t: Tenant, from: string, extra: Record<string, unknown> = {}) =>
  t.api("POST", "/v1/mail/send", { from, to: "bob@dest.test", subject: "Hi", text: "Hello", ...extra });
const rcpt = (to: string) => rawSmtp(p.smtp!.port, ["EHLO client.test\r\n", "MAIL FROM:<someone@dest.test>\r\n", `RCPT TO:<${to}>\r\n`, "QUIT\r\n"]);
async function drainAfter(ms: number): Promise<void> {
  clock.advance(ms);
  await p.worker.drain();
}

describe("an unverified domain is a claim, and a claim does nothing", () => {
  it("sending, batch sending, mailboxes and groups are 409 not_ready naming the domain and its record; nothing is stored or queued", async () => {
    const claim = await b.api("POST", "/v1/maildomains", { name: "bigbank.example" });
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ ready: false, autoDns: { created: 0 }, verification: { status: "pending", reason: expect.stringContaining("platform-verification=") } });
    const record = verificationOf(claim.body);
    const [messages, jobs] = [messageCount(), relayJobs()];

    for (const res of [
      await send(b, "ceo@bigbank.example"),
      await b.api("POST", "/v1/mail/send-batch", { from: "ceo@bigbank.example", subject: "Hi", text: "x", messages: [{ to: "bob@dest.test" }, { to: "ann@dest.test" }] }),
      await send(b, "ceo@bigbank.example", { sendAt: new Date(clock.now() + HOUR).toISOString() }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: "not_ready", details: [{ path: "body.from" }] });
      expect(res.body.error).toContain("bigbank.example");
      expect(res.body.error).toContain(record);
    }
    expect([messageCount(), relayJobs()]).toEqual([messages, jobs]);

    for (const [path, body] of [["/v1/mailboxes", { name: "ceo", domain: "bigbank.example", password: "long-enough-1" }], ["/v1/groups", { name: "all", domain: "bigbank.example" }]] as const) {
      const res = await b.api("POST", path, body);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: "not_ready", details: [{ path: "body.domain" }] });
    }
    expect((await b.api("GET", "/v1/mailboxes")).body.mailboxes).toEqual([]);
  });

  it("the MX refuses mail for a merely claimed domain as relaying", async () => {
    await b.api("POST", "/v1/maildomains", { name: "claimed.example" });
    expect(await rcpt("anyone@claimed.example")).toMatch(/^550 5\.7\.1 /m);
  });

  it("another project's claim never blocks: both hold a pending claim, each with its own token", async () => {
    const first = await b.api("POST", "/v1/maildomains", { name: "shared.example" });
    const second = await a.api("POST", "/v1/maildomains", { name: "shared.example" });
    expect(second.status).toBe(200);
    expect(second.body.verification.status).toBe("pending");
    expect(verificationOf(second.body)).not.toBe(verificationOf(first.body));
  });
});

describe("the first project to prove control owns the domain", () => {
  it("by its token in DNS: it is verified and sends DKIM-signed, the other claim ends visibly and cannot take it", async () => {
    await worldZone("acme-corp.example");
    const theirs = await b.api("POST", "/v1/maildomains", { name: "acme-corp.example" });
    const mine = await a.api("POST", "/v1/maildomains", { name: "acme-corp.example" });
    await publishTxt("acme-corp.example", verificationOf(mine.body));

    const verified = await a.api("GET", "/v1/maildomains/acme-corp.example");
    expect(verified.body).toMatchObject({ ready: true, verification: { status: "verified", method: "dns" } });
    const ended = await b.api("GET", "/v1/maildomains/acme-corp.example");
    expect(ended.body).toMatchObject({ ready: false, verification: { status: "ended", reason: expect.stringContaining("another project") } });

    // The loser publishes its own token too: the owner's proof still holds, so nothing moves.
    await publishTxt("acme-corp.example", verificationOf(theirs.body));
    const again = await b.api("POST", "/v1/maildomains", { name: "acme-corp.example" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: theirs.body.id, ready: false, verification: { status: "pending", reason: expect.stringContaining("another project owns") } });
    expect((await send(b, "ceo@acme-corp.example")).status).toBe(409);

    const sent = await send(a, "ceo@acme-corp.example");
    expect(sent.status).toBe(200);
    await p.worker.drain();
    expect(sink.messages).toHaveLength(1);
    expect(sink.messages[0].raw.toString()).toMatch(/DKIM-Signature:[^]*?d=acme-corp\.example/);
  });

  it("by hosting: the zone bound to a project verifies its domain at connect; another project's pending claim ends", async () => {
    const theirs = await b.api("POST", "/v1/maildomains", { name: "later.example" });
    const early = await a.api("POST", "/v1/maildomains", { name: "later.example" });
    expect(early.body).toMatchObject({ ready: false, autoDns: { created: 0 } });

    await p.services.zones.createZone({ name: "later.example", projectId: a.projectId });
    const again = await a.api("POST", "/v1/maildomains", { name: "later.example" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: early.body.id, ready: true, autoDns: { created: 5 }, verification: { status: "verified", method: "hosting" } });
    expect(again.body.records.every((r: { ok: boolean }) => r.ok)).toBe(true);
    // Connecting once more publishes nothing twice.
    expect((await a.api("POST", "/v1/maildomains", { name: "later.example" })).body.autoDns.created).toBe(0);

    const ended = await b.api("GET", "/v1/maildomains/later.example");
    expect(ended.body).toMatchObject({ ready: false, verification: { status: "ended", reason: expect.stringContaining("another project") } });
    expect(theirs.body.id).toBeDefined();
    expect((await send(a, "news@later.example")).status).toBe(200);
  });

  it("a name at or under a zone another project hosts here is 409 for everyone else", async () => {
    for (const name of [a.domain, `mail.${a.domain}`, `deep.sub.${a.domain}`]) {
      const res = await b.api("POST", "/v1/maildomains", { name });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("conflict");
      expect(res.body.error).toContain(`zone ${a.domain}`);
    }
    expect((await b.api("GET", "/v1/maildomains")).body.domains.map((d: { name: string }) => d.name)).not.toContain(`mail.${a.domain}`);
    expect((await a.api("POST", "/v1/maildomains", { name: `mail.${a.domain}` })).body).toMatchObject({ ready: true, verification: { method: "hosting" } });
  });
});

describe("verification is re-checked hourly on the job queue", () => {
  it("a domain whose token is taken down loses it at the next check: sending, receiving and scheduled sends stop; restored, it resumes", async () => {
    await worldZone("proof.example");
    const connected = await a.api("POST", "/v1/maildomains", { name: "proof.example" });
    const token = await publishTxt("proof.example", verificationOf(connected.body));
    expect((await a.api("GET", "/v1/maildomains/proof.example")).body.ready).toBe(true);
    expect((await a.api("POST", "/v1/mailboxes", { name: "info", domain: "proof.example", password: "long-enough-1" })).status).toBe(200);
    expect(await rcpt("info@proof.example")).toMatch(/^250 /m);
    const scheduled = await send(a, "news@proof.example", { sendAt: new Date(clock.now() + 90 * 60_000).toISOString() });
    expect(scheduled.body.status).toBe("scheduled");
    expect(count(`SELECT COUNT(*) AS n FROM jobs WHERE kind = '${VERIFY_JOB}' AND payload LIKE '%${connected.body.id}%'`)).toBe(1);

    await p.services.zones.deleteRecord("proof.example", token);
    await drainAfter(HOUR + 1000);
    // Read from the store: the job moved it, not a request.
    expect(await stored(a, "proof.example")).toMatchObject({ status: "lost", statusReason: expect.stringContaining("not published") });
    expect((await a.api("GET", "/v1/maildomains")).body.domains).toContainEqual({ id: connected.body.id, name: "proof.example", ready: false, status: "lost" });
    const refused = await send(a, "news@proof.example");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("no longer verified");
    expect(await rcpt("info@proof.example")).toMatch(/^450 4\.7\.1 /m);

    // The scheduled send fires while the domain is lost: it fails with the reason, nothing leaves.
    await drainAfter(HOUR);
    const detail = (await a.api("GET", `/v1/mail/messages/${scheduled.body.id}`)).body.message;
    expect(detail.status).toBe("failed");
    expect(sink.messages.filter((m) => m.mailFrom.endsWith("@proof.example"))).toEqual([]);

    await publishTxt("proof.example", verificationOf(connected.body));
    await drainAfter(HOUR);
    expect(await stored(a, "proof.example")).toMatchObject({ status: "verified", verifiedBy: "dns" });
    expect((await send(a, "news@proof.example")).status).toBe(200);
    expect(await rcpt("info@proof.example")).toMatch(/^250 /m);
    // One chain per claim, however often it was checked on demand.
    expect(count(`SELECT COUNT(*) AS n FROM jobs WHERE kind = '${VERIFY_JOB}' AND payload LIKE '%${connected.body.id}%'`)).toBe(1);
  });

  it("when the owner's proof is gone, a claim that has its own takes the domain over at once", async () => {
    await worldZone("moved.example");
    const old = await b.api("POST", "/v1/maildomains", { name: "moved.example" });
    const oldToken = await publishTxt("moved.example", verificationOf(old.body));
    expect((await b.api("GET", "/v1/maildomains/moved.example")).body.ready).toBe(true);

    // The domain changed hands: the new registrant replaces the old token with its own.
    const mine = await a.api("POST", "/v1/maildomains", { name: "moved.example" });
    expect(mine.body.verification.status).toBe("pending");
    await p.services.zones.deleteRecord("moved.example", oldToken);
    await publishTxt("moved.example", verificationOf(mine.body));
    expect((await a.api("GET", "/v1/maildomains/moved.example")).body).toMatchObject({ ready: true, verification: { status: "verified" } });
    expect(await stored(b, "moved.example")).toMatchObject({ status: "ended" });
    expect((await send(b, "x@moved.example")).status).toBe(409);
  });
});
