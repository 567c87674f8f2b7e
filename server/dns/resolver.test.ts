// Our server as a real stub resolver sees it: node:dns (c-ares) through createResolver,
// plus a plain dns.promises.Resolver for the lookups the adapter does not wrap.
import { promises as dns } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type DnsServer } from "./authoritative-server.ts";
import { BIG_TXT_SET, LONG_TXT, createExampleZone } from "./example-zone.ts";
import { createResolver, type DnsResolver } from "./resolver.ts";

let server: DnsServer;
let resolver: DnsResolver;
let raw: dns.Resolver;
beforeAll(async () => {
  const { repository } = await createExampleZone();
  server = await startDnsServer({ host: "127.0.0.1", port: 0, repository });
  resolver = createResolver({ servers: [`127.0.0.1:${server.udpPort}`] });
  raw = new dns.Resolver({ timeout: 2000, tries: 2 });
  raw.setServers([`127.0.0.1:${server.udpPort}`]);
});
afterAll(() => server.close());

describe("createResolver against the authoritative server", () => {
  it("resolves A, MX, CNAME and TXT", async () => {
    expect(await resolver.resolve4("web.example.test")).toEqual(["192.0.2.2"]);
    expect(await resolver.resolveMx("example.test")).toMatchObject([{ priority: 10, exchange: "mx.example.test" }]);
    expect(await resolver.resolveCname("www.example.test")).toEqual(["web.example.test"]);
    expect(await resolver.resolveTxt("example.test")).toEqual([["v=spf1 -all"]]);
  });

  it("joins the 255-byte strings of a long TXT record", async () => {
    expect(await resolver.resolveTxtJoinedOrEmpty("s1._domainkey.example.test")).toEqual([LONG_TXT]);
  });

  it("falls back to TCP for a truncated TXT set", async () => {
    expect((await resolver.resolveTxtJoinedOrEmpty("big.example.test")).sort()).toEqual([...BIG_TXT_SET].sort());
  });

  it("reads NXDOMAIN and NODATA as empty in the OrEmpty variants", async () => {
    expect(await resolver.resolveTxtJoinedOrEmpty("nope.example.test")).toEqual([]);
    expect(await resolver.resolveMxOrEmpty("web.example.test")).toEqual([]);
  });

  it.each([
    ["ENOTFOUND for NXDOMAIN", "nope.example.test", "ENOTFOUND"],
    ["ENODATA for NODATA", "web.example.test", "ENODATA"],
    ["EREFUSED outside the hosted zones", "example.org", "EREFUSED"],
  ])("rejects with %s", async (_, name, code) => {
    await expect(resolver.resolveMx(name)).rejects.toMatchObject({ code });
  });

  it("still rejects a refusal in the OrEmpty variants", async () => {
    await expect(resolver.resolveTxtJoinedOrEmpty("example.org")).rejects.toMatchObject({ code: "EREFUSED" });
  });
});

describe("dns.promises.Resolver against the authoritative server", () => {
  it("reads the synthesized SOA and NS", async () => {
    expect(await raw.resolveSoa("example.test")).toMatchObject({ nsname: "ns1.example.test", hostmaster: "hostmaster.example.test", minttl: 300 });
    expect((await raw.resolveNs("example.test")).sort()).toEqual(["ns1.example.test", "ns2.example.test"]);
  });

  it("reads AAAA, SRV and CAA", async () => {
    expect(await raw.resolve6("web.example.test")).toEqual(["2001:db8::2"]);
    expect(await raw.resolveSrv("_sip._tcp.example.test")).toMatchObject([{ priority: 10, weight: 5, port: 5060, name: "sip.example.test" }]);
    expect(await raw.resolveCaa("example.test")).toMatchObject([{ critical: 0, issue: "ca.test" }]);
  });

  it("follows the CNAME for an A query", async () => {
    expect(await raw.resolve4("WWW.example.test")).toEqual(["192.0.2.2"]);
  });
});
