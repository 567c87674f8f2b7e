// The DNS record routes through HTTP, answered by the authoritative server (node:dns and dig).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Resolver } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let t: Tenant;
let resolver: Resolver;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("zone");
  resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([`127.0.0.1:${p.dns!.udpPort}`]);
});
afterAll(() => p.stop());

describe("DNS records", () => {
  it("creates a record that the DNS server answers at once, lists it and deletes it", async () => {
    const created = await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "A", name: "www", data: "192.0.2.10", ttl: 300 });
    expect(created.body).toEqual({ created: true, id: expect.stringMatching(/^rec_[a-z0-9]+$/) });
    expect(await resolver.resolve4(`www.${t.domain}`)).toEqual(["192.0.2.10"]);

    const list = await t.api("GET", `/v1/dns/${t.domain}/records`);
    expect(list.body.zone).toBe(t.domain);
    expect(list.body.records).toContainEqual({ id: created.body.id, type: "A", name: "www", data: "192.0.2.10", ttl: 300 });

    expect((await t.api("DELETE", `/v1/dns/${t.domain}/records/${created.body.id}`)).body).toEqual({ deleted: true });
    await expect(resolver.resolve4(`www.${t.domain}`)).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect((await t.api("DELETE", `/v1/dns/${t.domain}/records/${created.body.id}`)).status).toBe(404);
  });

  it("answers a created and then a deleted record at once although the question was cached before", async () => {
    // Asked twice first, so the server's packet cache holds the NXDOMAIN when the record lands.
    for (let i = 0; i < 2; i++) await expect(resolver.resolve4(`cached.${t.domain}`)).rejects.toMatchObject({ code: "ENOTFOUND" });
    const hitsBefore = p.dns!.packetCache().hits;
    await expect(resolver.resolve4(`cached.${t.domain}`)).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(p.dns!.packetCache().hits).toBeGreaterThan(hitsBefore);
    const created = await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "A", name: "cached", data: "192.0.2.11", ttl: 300 });
    expect(await resolver.resolve4(`cached.${t.domain}`)).toEqual(["192.0.2.11"]);
    expect(await resolver.resolve4(`cached.${t.domain}`)).toEqual(["192.0.2.11"]);
    expect((await t.api("DELETE", `/v1/dns/${t.domain}/records/${created.body.id}`)).body).toEqual({ deleted: true });
    await expect(resolver.resolve4(`cached.${t.domain}`)).rejects.toMatchObject({ code: "ENOTFOUND" });
  });

  it("dig @127.0.0.1 answers a record created through the API", async () => {
    await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "MX", name: "@", data: "mx2.example.net", priority: 20 });
    // Asynchronous: the DNS server answering dig runs in this very process.
    const { stdout: out } = await promisify(execFile)("dig", ["@127.0.0.1", "-p", String(p.dns!.udpPort), t.domain, "MX", "+norec"]);
    expect(out).toMatch(/flags: qr aa/);
    expect(out).toMatch(/IN\s+MX\s+20 mx2\.example\.net\./);
  });

  it.each([
    ["an A record with an IPv6 address", { type: "A", name: "x", data: "2001:db8::1" }, "body.data"],
    ["an MX without priority", { type: "MX", name: "@", data: "mx.example.net" }, "body.priority"],
    ["a TTL below 60", { type: "A", name: "x", data: "192.0.2.1", ttl: 30 }, "body.ttl"],
    ["an unknown type", { type: "PTR", name: "x", data: "y" }, "body.type"],
    ["an SRV without _service._proto", { type: "SRV", name: "sip", data: "10 5 5060 sip.example.net" }, "body.name"],
    ["a CAA with an unknown tag", { type: "CAA", name: "@", data: '0 policy "ca.test"' }, "body.data"],
  ])("refuses %s with 400 and details", async (_n, body, path) => {
    const res = await t.api("POST", `/v1/dns/${t.domain}/records`, body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("names the allowed types when the type is unknown", async () => {
    const res = await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "PTR", name: "x", data: "y" });
    expect(res.body.details).toEqual([{ path: "body.type", message: "must be one of A, AAAA, TXT, MX, CNAME, NS, SRV, CAA" }]);
  });

  it("a CNAME at the apex conflicts with the zone's SOA and NS: 409 conflict", async () => {
    const res = await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "CNAME", name: "@", data: "target.example.net" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "conflict", details: [{ path: "body.name", message: expect.stringMatching(/apex/) }] });
  });

  it("priority on a record other than MX is an unknown field, ignored", async () => {
    const res = await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "TXT", name: "prio", data: "hello", priority: 7 });
    expect(res.status).toBe(200);
    const list = await t.api("GET", `/v1/dns/${t.domain}/records`);
    expect(list.body.records.find((r: { id: string }) => r.id === res.body.id)).toEqual({ id: res.body.id, type: "TXT", name: "prio", data: "hello", ttl: 3600 });
  });

  it("a CNAME must stand alone at its name: 409 conflict", async () => {
    await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "A", name: "both", data: "192.0.2.2" });
    const res = await t.api("POST", `/v1/dns/${t.domain}/records`, { type: "CNAME", name: "both", data: "x.example.net" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("conflict");
  });

  it("a zone whose registrar needs data: deletion without it is 400, with a wrong value 404", async () => {
    await p.services.zones.createZone({ name: "strict.test", projectId: t.projectId, registrarRequiresData: true });
    const rec = await t.api("POST", "/v1/dns/strict.test/records", { type: "TXT", name: "@", data: "hello" });
    const missing = await t.api("DELETE", `/v1/dns/strict.test/records/${rec.body.id}`);
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].path).toBe("query.data");
    expect((await t.api("DELETE", `/v1/dns/strict.test/records/${rec.body.id}?data=other`)).status).toBe(404);
    expect((await t.api("DELETE", `/v1/dns/strict.test/records/${rec.body.id}?data=hello`)).body).toEqual({ deleted: true });
  });

  it("a zone that is not bound to the project is 404", async () => {
    await p.services.zones.createZone({ name: "unbound.test" });
    expect((await t.api("GET", "/v1/dns/unbound.test/records")).status).toBe(404);
  });
});
