// Mail domains through HTTP; `ready` comes from real lookups against the server's own DNS server.
import { createPublicKey } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateRecord } from "../dns/validate-record.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("maildom");
});
afterAll(() => p.stop());

describe("mail domains", () => {
  it("connecting a domain in a zone hosted here publishes its five records and is ready at once", async () => {
    await p.services.zones.createZone({ name: "hosted.test", projectId: t.projectId });
    const res = await t.api("POST", "/v1/maildomains", { name: "hosted.test" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^dom_/), name: "hosted.test", autoDns: { created: 5 }, ready: true, verification: { status: "verified", method: "hosting" } });
    expect(res.body.records.map((r: { purpose: string }) => r.purpose)).toEqual(["mx", "spf", "dkim", "dmarc", "verification"]);
    expect(res.body.records.every((r: { ok: boolean }) => r.ok)).toBe(true);

    const zone = await t.api("GET", "/v1/dns/hosted.test/records");
    expect(zone.body.records.map((r: { type: string; name: string }) => `${r.type} ${r.name}`).sort()).toEqual(
      ["MX @", "TXT @", "TXT @", "TXT _dmarc", "TXT platform._domainkey"].sort(),
    );
  });

  it("a subdomain of a hosted zone is published inside that zone", async () => {
    await p.services.zones.createZone({ name: "parent.test", projectId: t.projectId });
    const res = await t.api("POST", "/v1/maildomains", { name: "mail.parent.test" });
    expect(res.body).toMatchObject({ autoDns: { created: 5 }, ready: true });
    const names = (await t.api("GET", "/v1/dns/parent.test/records")).body.records.map((r: { name: string }) => r.name);
    expect(names).toContain("platform._domainkey.mail");
  });

  it("the DKIM record carries an RSA 2048 public key", async () => {
    const res = await t.api("GET", `/v1/maildomains/${t.domain}`);
    const dkim = res.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
    expect(dkim.name).toBe(`platform._domainkey.${t.domain}`);
    const b64 = /p=([A-Za-z0-9+/=]+)/.exec(dkim.data)![1];
    const key = createPublicKey({ key: Buffer.from(b64, "base64"), format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it("a domain whose zone is not hosted here gets no records published and is not ready", async () => {
    const res = await t.api("POST", "/v1/maildomains", { name: "external.example" });
    expect(res.body).toMatchObject({ name: "external.example", autoDns: { created: 0 }, ready: false });
    expect(res.body.records.every((r: { ok: boolean }) => !r.ok)).toBe(true);
  });

  // The zone is served here but belongs to no project: DNS hosted "elsewhere", where the owner
  // publishes by hand (the operator's console stands in for their DNS provider).
  it("a domain whose DNS is elsewhere: each record turns ok as it is published, and ready (verified) comes with the verification TXT", async () => {
    await p.services.zones.createZone({ name: "manual.test", projectId: null });
    const created = await t.api("POST", "/v1/maildomains", { name: "manual.test" });
    expect(created.body).toMatchObject({ autoDns: { created: 0 }, ready: false, verification: { status: "pending" } });
    const records = created.body.records as { purpose: string; type: string; name: string; data: string; priority?: number }[];
    expect(records.at(-1)!.purpose).toBe("verification");
    for (const [i, r] of records.entries()) {
      const relative = r.name === "manual.test" ? "@" : r.name.slice(0, -".manual.test".length);
      const checked = validateRecord({ type: r.type, name: relative, data: r.data, priority: r.priority }, "manual.test");
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      await p.services.zones.insertRecord("manual.test", checked.record);
      const now = await t.api("GET", "/v1/maildomains/manual.test");
      expect(now.body.records.map((x: { ok: boolean }) => x.ok)).toEqual(records.map((_, j) => j <= i));
      expect(now.body.ready).toBe(i === records.length - 1);
    }
    expect((await t.api("GET", "/v1/maildomains/manual.test")).body.verification).toMatchObject({ status: "verified", method: "dns" });
  });

  it("lists the project's domains; connecting one again answers its current state (200) with the same id", async () => {
    const list = await t.api("GET", "/v1/maildomains");
    expect(list.body.domains).toContainEqual({ id: expect.stringMatching(/^dom_/), name: t.domain, ready: true, status: "verified" });
    const again = await t.api("POST", "/v1/maildomains", { name: t.domain });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: list.body.domains.find((d: { name: string }) => d.name === t.domain).id, autoDns: { created: 0 }, ready: true });
    expect((await t.api("GET", "/v1/maildomains")).body.domains).toHaveLength(list.body.domains.length);
  });

  it("an unknown domain is 404 and a malformed name 400", async () => {
    expect((await t.api("GET", "/v1/maildomains/nothing.test")).status).toBe(404);
    expect((await t.api("POST", "/v1/maildomains", { name: "not a domain" })).body.details[0].path).toBe("body.name");
  });
});
