// `maildomain.status_changed` (decision O7) end to end: real verification through the server's own
// DNS server as the resolver, driven by publishing and removing the TXT token in a zone no project
// holds ("the world's DNS", as in ownership.test.ts) and by the hourly `maildomain.verify` job;
// each change reaches a real loopback webhook receiver once, signed, with the payload GET agrees
// with; a re-check that finds the same state sends nothing. On SQLite and on PostgreSQL.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../test/contract/openapi.ts";
import { contractValidator, pointer } from "../../test/contract/validator.ts";
import { validateRecord } from "../dns/validate-record.ts";
import { manualClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { startReceiver, type TestReceiver } from "../test/receiver.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

const HOUR = 3_600_000;
const EVENT = "maildomain.status_changed";
// Every body is checked against the event's schema in the generated OpenAPI document.
const validate = contractValidator(loadContract());
const bodySchema = pointer("webhooks", EVENT, "post", "requestBody", "content", "application/json", "schema");

interface Delivered {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

describe.each(backends)("mail domain status events on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let receiver: TestReceiver;
  let a: Tenant;
  let b: Tenant;
  const secrets = new Map<string, string>();
  const clock = manualClock();
  let taken = 0;

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    receiver = await startReceiver(() => 204);
    p = await startTestPlatform({ databaseUrl, allowHttpLoopbackWebhooks: true }, { clock, runWorker: false });
    a = await p.newTenant(`evt-a-${backend}`);
    b = await p.newTenant(`evt-b-${backend}`);
    for (const t of [a, b]) {
      // No `events`: every event, the new one included.
      const hook = await t.api("POST", "/v1/webhooks", { url: `${receiver.url}/${t.projectId}` });
      expect(hook.status).toBe(200);
      expect(hook.body.events).toContain(EVENT);
      secrets.set(t.projectId, hook.body.secret);
      // A subscription that did not select it gets nothing of it.
      expect((await t.api("POST", "/v1/webhooks", { url: `${receiver.url}/${t.projectId}/received-only`, events: ["mail.received"] })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
    await database?.stop();
  });

  /** Runs every due job (checks, then the deliveries they caused); answers what arrived since the last call. */
  async function arrived(): Promise<Delivered[]> {
    await p.worker.drain();
    const fresh = receiver.received.slice(taken);
    taken = receiver.received.length;
    for (const r of fresh) expect(r.path).not.toMatch(/received-only$/);
    return fresh.map((r) => ({ path: r.path, headers: r.headers, raw: r.body, body: JSON.parse(r.body) }));
  }
  const of = (t: Tenant, events: Delivered[]) => events.filter((e) => e.path === `/hook/${t.projectId}`);
  async function afterHours(hours: number): Promise<Delivered[]> {
    clock.advance(hours * HOUR + 1000);
    return arrived();
  }

  /** The one event `t` got: signed with its subscription's secret, typed in header and body. */
  function single(t: Tenant, events: Delivered[]): Delivered["body"]["data"] {
    const mine = of(t, events);
    expect(mine, JSON.stringify(events.map((e) => e.body))).toHaveLength(1);
    const [e] = mine;
    expect(e.headers["x-platform-event"]).toBe(EVENT);
    expect(e.body.type).toBe(EVENT);
    expect(validate(bodySchema, e.body)).toEqual([]);
    expect(e.headers["x-platform-signature"]).toBe(`sha256=${createHmac("sha256", secrets.get(t.projectId)!).update(e.raw).digest("hex")}`);
    return e.body.data;
  }

  async function worldZone(name: string): Promise<void> {
    await p.services.zones.createZone({ name, projectId: null });
  }
  async function publishTxt(zone: string, data: string): Promise<string> {
    const checked = validateRecord({ type: "TXT", name: "@", data }, zone);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return (await p.services.zones.insertRecord(zone, checked.record)).id;
  }
  const verificationOf = (body: { records: { purpose: string; data: string }[] }) => body.records.find((r) => r.purpose === "verification")!.data;
  const shown = async (t: Tenant, name: string) => (await t.api("GET", `/v1/maildomains/${name}`)).body.verification;
  const at = () => new Date(clock.now()).toISOString();

  it("pending -> verified, verified -> lost, lost -> verified each send one signed event; the ended claim hears of its own end only; re-checks send none", async () => {
    const name = `moves-${backend}.example`;
    await worldZone(name);
    const theirs = await b.api("POST", "/v1/maildomains", { name });
    const mine = await a.api("POST", "/v1/maildomains", { name });
    expect([theirs.body.verification.status, mine.body.verification.status]).toEqual(["pending", "pending"]);
    // Connecting makes a claim; it is no change of status.
    expect(await arrived()).toEqual([]);

    // pending -> verified (found at the read), and the other project's claim ends in that write.
    const token = await publishTxt(name, verificationOf(mine.body));
    expect((await shown(a, name)).status).toBe("verified");
    const events = await arrived();
    expect(single(a, events)).toEqual({ domainId: mine.body.id, domain: name, status: "verified", previousStatus: "pending", method: "dns", at: at() });
    const ended = single(b, events);
    expect(ended).toEqual({ domainId: theirs.body.id, domain: name, status: "ended", previousStatus: "pending", reason: (await shown(b, name)).reason, at: at() });
    // No cross-project data: neither the project that took the name nor its claim.
    const endedRaw = of(b, events)[0].raw;
    expect(endedRaw).not.toContain(a.projectId);
    expect(endedRaw).not.toContain(mine.body.id);

    // The hourly re-check and a read that find the same state: nothing.
    expect(await afterHours(1)).toEqual([]);
    expect((await shown(a, name)).status).toBe("verified");
    expect(await arrived()).toEqual([]);

    // verified -> lost at the next hourly check: sending stops, and the integrator hears why.
    await p.services.zones.deleteRecord(name, token);
    const lost = single(a, await afterHours(1));
    const lostShown = await shown(a, name);
    expect(lostShown.status).toBe("lost");
    expect(lost).toEqual({ domainId: mine.body.id, domain: name, status: "lost", previousStatus: "verified", reason: lostShown.reason, at: lostShown.checkedAt });
    expect(lost.reason).toContain(verificationOf(mine.body));
    expect(await arrived()).toEqual([]);
    // Still lost an hour later: nothing new.
    expect(await afterHours(1)).toEqual([]);

    // lost -> verified when the proof returns.
    await publishTxt(name, verificationOf(mine.body));
    const back = single(a, await afterHours(1));
    expect(back).toEqual({ domainId: mine.body.id, domain: name, status: "verified", previousStatus: "lost", method: "dns", at: (await shown(a, name)).checkedAt });
    expect(await afterHours(1)).toEqual([]);
  });

  it("pending -> ended when another project hosts the zone here: the event names the zone, not the project", async () => {
    const name = `hosted-${backend}.example`;
    const claim = await b.api("POST", "/v1/maildomains", { name });
    expect(claim.body.verification.status).toBe("pending");
    expect(await arrived()).toEqual([]);

    await p.services.zones.createZone({ name, projectId: a.projectId });
    const events = await afterHours(1);
    const shownB = await shown(b, name);
    expect(shownB.status).toBe("ended");
    const data = single(b, events);
    expect(data).toEqual({ domainId: claim.body.id, domain: name, status: "ended", previousStatus: "pending", reason: shownB.reason, at: shownB.checkedAt });
    expect(data.reason).toContain(`zone ${name}`);
    expect(of(b, events)[0].raw).not.toContain(a.projectId);
    // Ended claims are not checked again.
    expect(await afterHours(1)).toEqual([]);
  });

  it("the delivery log shows the event and GET /v1/webhooks lists it among the subscribed events", async () => {
    const hooks = (await a.api("GET", "/v1/webhooks")).body.webhooks as { id: string; events: string[] }[];
    const all = hooks.find((h) => h.events.includes(EVENT))!;
    const log = (await a.api("GET", `/v1/webhooks/${all.id}/deliveries`)).body.deliveries as { event: string; status: string }[];
    expect(log.filter((d) => d.event === EVENT).map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"]);
  });
});
