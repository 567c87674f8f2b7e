// Reasons everywhere (issue 41 item 4), through the real server on SQLite and PostgreSQL:
// - a message that failed because its domain lost verification before it left says why in its
//   detail (`statusReason`, decision S16), as does a delayed or bounced one; a delivered one has none;
// - sandbox messages stay out of the stats (decision S17): a tour of bounced@ and complained@
//   leaves health `ok`, while a real bounce from a mailbox of this server still counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateRecord } from "../dns/validate-record.ts";
import { manualClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

const HOUR = 3_600_000;

describe.each(backends)("reasons and stats on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let t: Tenant;
  const clock = manualClock();

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    p = await startTestPlatform({ databaseUrl }, { clock, runWorker: false });
    t = await p.newTenant(`why-${backend}`);
  });
  afterAll(async () => {
    await p?.stop();
    await database?.stop();
  });

  const send = (body: Record<string, unknown>) => t.api("POST", "/v1/mail/send", { subject: "Hi", text: "Hello", ...body });
  const detail = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body.message;
  async function drainAfter(ms: number): Promise<void> {
    clock.advance(ms);
    await p.worker.drain();
  }

  it("a scheduled message whose domain lost its proof before it left is failed, and its detail says why", async () => {
    const name = "lapsed.example";
    await p.services.zones.createZone({ name, projectId: null });
    const claim = await t.api("POST", "/v1/maildomains", { name });
    const record = claim.body.records.find((r: { purpose: string }) => r.purpose === "verification").data as string;
    const checked = validateRecord({ type: "TXT", name: "@", data: record }, name);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const token = (await p.services.zones.insertRecord(name, checked.record)).id;
    expect((await t.api("GET", `/v1/maildomains/${name}`)).body.ready).toBe(true);
    const scheduled = await send({ from: `news@${name}`, to: `ann@${t.domain}`, sendAt: new Date(clock.now() + HOUR).toISOString() });
    expect(scheduled.body.status).toBe("scheduled");
    expect(await detail(scheduled.body.id)).not.toHaveProperty("statusReason");

    await p.services.zones.deleteRecord(name, token);
    expect((await t.api("GET", `/v1/maildomains/${name}`)).body.verification.status).toBe("lost");
    await drainAfter(HOUR + 1000);
    const failed = await detail(scheduled.body.id);
    expect(failed.status).toBe("failed");
    expect(failed.statusReason).toContain(`the mail domain ${name} is no longer verified`);
    expect(failed.statusReason).toContain(record);
  });

  it("a delayed and a bounced message say why; a delivered one has no reason", async () => {
    expect((await t.api("POST", "/v1/mailboxes", { name: "ann", domain: t.domain, password: "long-enough-1" })).status).toBe(200);
    const delivered = await send({ from: `hello@${t.domain}`, to: `ann@${t.domain}` });
    const bounced = await send({ from: `hello@${t.domain}`, to: `nobody@${t.domain}` });
    const delayed = await send({ from: `hello@${t.domain}`, to: "delayed@sandbox.platform.test" });
    await p.worker.drain();
    expect(await detail(delivered.body.id)).toMatchObject({ status: "delivered" });
    expect(await detail(delivered.body.id)).not.toHaveProperty("statusReason");
    expect(await detail(bounced.body.id)).toMatchObject({ status: "bounced", statusReason: expect.stringMatching(/^550 5\.1\.1 /) });
    expect(await detail(delayed.body.id)).toMatchObject({ status: "delayed", statusReason: expect.stringMatching(/^451 /) });
  });

  it("sandbox messages stay out of the stats: a tour of bounced@ and complained@ leaves health ok; a real bounce counts", async () => {
    const before = (await t.api("GET", "/v1/mail/stats")).body;
    for (const to of ["bounced+s17@sandbox.platform.test", "complained+s17@sandbox.platform.test", "delivered@sandbox.platform.test"])
      expect((await send({ from: `hello@${t.domain}`, to, stream: "marketing", unsubscribe: true })).status).toBe(200);
    await p.worker.drain();
    await drainAfter(1000);
    const bouncedSandbox = (await t.api("GET", "/v1/mail/messages?status=bounced")).body.messages.filter((m: { toAddr: string }) => m.toAddr.endsWith("@sandbox.platform.test"));
    expect(bouncedSandbox).toHaveLength(1);
    expect((await t.api("GET", "/v1/mail/messages?status=complained")).body.messages).toHaveLength(1);
    const after = (await t.api("GET", "/v1/mail/stats")).body;
    expect(after).toEqual(before);

    // Mail that left for a real recipient server (a mailbox of this deployment) still counts.
    const real = await send({ from: `hello@${t.domain}`, to: `nobody-else@${t.domain}` });
    await p.worker.drain();
    expect((await detail(real.body.id)).status).toBe("bounced");
    const counted = (await t.api("GET", "/v1/mail/stats")).body;
    expect(counted.total).toBe(before.total + 1);
    expect(counted.funnel.bounced).toBe(before.funnel.bounced + 1);
    expect(counted.health).toBe("critical");
  });
});
