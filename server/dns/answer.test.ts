// The DNS rules of answer.ts, pure: every case builds its own zone index, so no case leans on an
// index another case built (a shared, cached index made mutation testing credit one test with
// what every test relied on). Each answer is compared whole: rcode, AA, and all three sections.
import { describe, expect, it } from "vitest";
import { answerQuestion, buildZoneIndex, type ZoneIdentity } from "./answer.ts";
import type { DnsRecordType } from "./record-data.ts";
import type { DnsRecord, DnsZone } from "./zone-repository.ts";

const ZONE: DnsZone = { name: "example.test", projectId: null, registrarRequiresData: false, serial: 7, createdAt: "2026-01-01T00:00:00Z" };

let ids = 0;
function rec(name: string, type: DnsRecordType, data: string, extra: { priority?: number | null; ttl?: number } = {}): DnsRecord {
  return { id: `r${++ids}`, zone: ZONE.name, name, type, data, priority: extra.priority ?? null, ttl: extra.ttl ?? 300, createdAt: "" };
}

/** Builds a fresh index and asks one question; `asked` defaults to the canonical name. */
function ask(records: DnsRecord[], qname: string, qtype: string, options: { asked?: string; identity?: ZoneIdentity } = {}) {
  return answerQuestion(buildZoneIndex(ZONE, records, options.identity), qname, qtype, options.asked ?? qname);
}

const soa = (owner = "example.test", ttl = 3600, mname = "ns1.example.test", rname = "hostmaster.example.test") => ({
  name: owner,
  type: "SOA",
  ttl,
  class: "IN",
  data: { mname, rname, serial: 7, refresh: 3600, retry: 600, expire: 604800, minimum: 300 },
});
const negativeSoa = soa("example.test", 300);
const rr = (name: string, type: string, data: unknown, ttl = 300) => ({ name, type, ttl, class: "IN", data });
const ok = (answers: unknown[]) => ({ rcode: "NOERROR", authoritative: true, answers, authorities: [], additionals: [] });
const nodata = (answers: unknown[] = []) => ({ rcode: "NOERROR", authoritative: true, answers, authorities: [negativeSoa], additionals: [] });
const nxdomain = (answers: unknown[] = []) => ({ rcode: "NXDOMAIN", authoritative: true, answers, authorities: [negativeSoa], additionals: [] });

describe("an empty zone", () => {
  it("answers SOA at the apex, with the zone's serial and the default name server and hostmaster", () => {
    expect(ask([], "example.test", "SOA")).toEqual(ok([soa()]));
  });

  it("publishes two NS records at the apex when none are stored", () => {
    expect(ask([], "example.test", "NS")).toEqual(ok([rr("example.test", "NS", "ns1.example.test", 3600), rr("example.test", "NS", "ns2.example.test", 3600)]));
  });

  it("answers NODATA for another type at the apex, NXDOMAIN below it, both with the 300 s negative SOA", () => {
    expect(ask([], "example.test", "A")).toEqual(nodata());
    expect(ask([], "www.example.test", "A")).toEqual(nxdomain());
    expect(ask([], "www.example.test", "ANY")).toEqual(nxdomain());
  });

  it("takes name servers and hostmaster from the zone identity", () => {
    const identity: ZoneIdentity = { nameservers: (z) => [`a.ns.${z}`, "b.ns.net"], hostmaster: (z) => `dns-admin.${z}` };
    expect(ask([], "example.test", "SOA", { identity })).toEqual(ok([soa("example.test", 3600, "a.ns.example.test", "dns-admin.example.test")]));
    expect(ask([], "example.test", "NS", { identity }).answers).toEqual([rr("example.test", "NS", "a.ns.example.test", 3600), rr("example.test", "NS", "b.ns.net", 3600)]);
    expect(ask([], "nope.example.test", "A", { identity }).authorities).toEqual([soa("example.test", 300, "a.ns.example.test", "dns-admin.example.test")]);
  });
});

describe("stored records", () => {
  it("echoes the asked spelling as the owner and the stored TTL", () => {
    const records = [rec("www", "A", "192.0.2.1", { ttl: 60 }), rec("www", "A", "192.0.2.2", { ttl: 60 })];
    expect(ask(records, "www.example.test", "A", { asked: "WwW.ExAmPlE.tEsT" })).toEqual(
      ok([rr("WwW.ExAmPlE.tEsT", "A", "192.0.2.1", 60), rr("WwW.ExAmPlE.tEsT", "A", "192.0.2.2", 60)]),
    );
  });

  it("stored NS records at the apex replace the published ones; the apex is not a delegation", () => {
    const records = [rec("@", "NS", "ns.provider.net"), rec("www", "A", "192.0.2.1")];
    expect(ask(records, "example.test", "NS")).toEqual(ok([rr("example.test", "NS", "ns.provider.net")]));
    expect(ask(records, "www.example.test", "A")).toEqual(ok([rr("www.example.test", "A", "192.0.2.1")]));
    expect(ask(records, "nope.example.test", "A")).toEqual(nxdomain());
  });

  it("other apex records sit beside the SOA and the published NS", () => {
    const records = [rec("@", "A", "192.0.2.7")];
    expect(ask(records, "example.test", "A")).toEqual(ok([rr("example.test", "A", "192.0.2.7")]));
    expect(ask(records, "example.test", "NS").answers).toHaveLength(2);
  });

  it("encodes TXT as character strings, MX with its preference (0 when none), SRV and CAA parsed", () => {
    const records = [
      rec("t", "TXT", "v=spf1 -all"),
      rec("m", "MX", "mail.example.test", { priority: 10 }),
      rec("m0", "MX", "mail.example.test"),
      rec("_sip._tcp", "SRV", "10 60 5060 sip.example.test"),
      rec("c", "CAA", '0 issue "letsencrypt.org"'),
    ];
    expect(ask(records, "t.example.test", "TXT").answers).toEqual([rr("t.example.test", "TXT", [Buffer.from("v=spf1 -all")])]);
    expect(ask(records, "m.example.test", "MX").answers).toEqual([rr("m.example.test", "MX", { preference: 10, exchange: "mail.example.test" })]);
    expect(ask(records, "m0.example.test", "MX").answers).toEqual([rr("m0.example.test", "MX", { preference: 0, exchange: "mail.example.test" })]);
    expect(ask(records, "_sip._tcp.example.test", "SRV").answers).toEqual([
      rr("_sip._tcp.example.test", "SRV", { priority: 10, weight: 60, port: 5060, target: "sip.example.test" }),
    ]);
    expect(ask(records, "c.example.test", "CAA").answers).toMatchObject([{ name: "c.example.test", type: "CAA", data: { tag: "issue", value: "letsencrypt.org" } }]);
  });

  it("a name with only other types is NODATA; an empty non-terminal is NODATA too", () => {
    const records = [rec("www", "A", "192.0.2.1"), rec("a.b", "TXT", "x")];
    expect(ask(records, "www.example.test", "AAAA")).toEqual(nodata());
    expect(ask(records, "b.example.test", "A")).toEqual(nodata());
    expect(ask(records, "c.b.example.test", "A")).toEqual(nxdomain());
  });

  it("answers ANY with the first RRset only (RFC 8482)", () => {
    const records = [rec("www", "TXT", "first"), rec("www", "A", "192.0.2.1"), rec("www", "TXT", "second")];
    expect(ask(records, "www.example.test", "ANY")).toEqual(ok([rr("www.example.test", "TXT", [Buffer.from("first")]), rr("www.example.test", "TXT", [Buffer.from("second")])]));
    expect(ask([], "example.test", "ANY")).toEqual(ok([soa()]));
  });
});

describe("CNAME", () => {
  it("is followed inside the zone, each answer owned by the name it answers", () => {
    const records = [rec("www", "CNAME", "target.example.test"), rec("target", "A", "192.0.2.1")];
    expect(ask(records, "www.example.test", "A", { asked: "WWW.example.test" })).toEqual(
      ok([rr("WWW.example.test", "CNAME", "target.example.test"), rr("target.example.test", "A", "192.0.2.1")]),
    );
  });

  it("asked for itself, is the answer", () => {
    const records = [rec("www", "CNAME", "target.example.test"), rec("target", "A", "192.0.2.1")];
    expect(ask(records, "www.example.test", "CNAME")).toEqual(ok([rr("www.example.test", "CNAME", "target.example.test")]));
  });

  it("is not chased out of the zone", () => {
    expect(ask([rec("www", "CNAME", "cdn.other.test")], "www.example.test", "A")).toEqual(ok([rr("www.example.test", "CNAME", "cdn.other.test")]));
  });

  it("to a missing name: the CNAME with NXDOMAIN (RFC 6604); to a name without the type: NODATA", () => {
    const records = [rec("a", "CNAME", "gone.example.test"), rec("b", "CNAME", "txt.example.test"), rec("txt", "TXT", "x")];
    expect(ask(records, "a.example.test", "A")).toEqual(nxdomain([rr("a.example.test", "CNAME", "gone.example.test")]));
    expect(ask(records, "b.example.test", "A")).toEqual(nodata([rr("b.example.test", "CNAME", "txt.example.test")]));
  });

  it("a loop ends when it comes back to a name already visited", () => {
    const records = [rec("a", "CNAME", "b.example.test"), rec("b", "CNAME", "a.example.test")];
    expect(ask(records, "a.example.test", "A")).toEqual(ok([rr("a.example.test", "CNAME", "b.example.test"), rr("b.example.test", "CNAME", "a.example.test")]));
    expect(ask([rec("self", "CNAME", "self.example.test")], "self.example.test", "A")).toEqual(ok([rr("self.example.test", "CNAME", "self.example.test")]));
  });

  it("a chain of 7 CNAMEs is followed to its address; at 8 CNAMEs the chase stops", () => {
    const chain = (n: number) => [
      ...Array.from({ length: n }, (_, i) => rec(`c${i}`, "CNAME", `c${i + 1}.example.test`)),
      rec(`c${n}`, "A", "192.0.2.9"),
    ];
    const seven = ask(chain(7), "c0.example.test", "A");
    expect(seven.answers.map((a) => a.type)).toEqual([...Array(7).fill("CNAME"), "A"]);
    expect(seven).toMatchObject({ rcode: "NOERROR", authorities: [] });
    const eight = ask(chain(8), "c0.example.test", "A");
    expect(eight).toEqual(ok(Array.from({ length: 8 }, (_, i) => rr(i === 0 ? "c0.example.test" : `c${i}.example.test`, "CNAME", `c${i + 1}.example.test`))));
  });

  it("into a delegated subtree: the CNAME, authoritative, and no referral (the resolver goes on)", () => {
    const records = [rec("alias", "CNAME", "www.sub.example.test"), rec("sub", "NS", "ns.provider.net")];
    expect(ask(records, "alias.example.test", "A")).toEqual(ok([rr("alias.example.test", "CNAME", "www.sub.example.test")]));
  });
});

describe("delegations", () => {
  const delegated = () => [
    rec("sub", "NS", "ns1.sub.example.test"),
    rec("sub", "NS", "ns2.provider.net"),
    rec("ns1.sub", "A", "192.0.2.53"),
    rec("ns1.sub", "AAAA", "2001:db8::53"),
    rec("ns1.sub", "TXT", "not glue"),
    rec("sub", "TXT", "hidden by the cut"),
  ];
  const referral = {
    rcode: "NOERROR",
    authoritative: false,
    answers: [],
    authorities: [rr("sub.example.test", "NS", "ns1.sub.example.test"), rr("sub.example.test", "NS", "ns2.provider.net")],
    additionals: [rr("ns1.sub.example.test", "A", "192.0.2.53"), rr("ns1.sub.example.test", "AAAA", "2001:db8::53")],
  };

  it("a query exactly at the delegation point is referred, with A and AAAA glue for the in-zone server", () => {
    expect(ask(delegated(), "sub.example.test", "A")).toEqual(referral);
    expect(ask(delegated(), "sub.example.test", "NS")).toEqual(referral);
    expect(ask(delegated(), "sub.example.test", "TXT")).toEqual(referral);
  });

  it("a query below it is referred, the glue names too", () => {
    expect(ask(delegated(), "www.sub.example.test", "A")).toEqual(referral);
    expect(ask(delegated(), "ns1.sub.example.test", "A")).toEqual(referral);
    expect(ask(delegated(), "deep.www.sub.example.test", "MX")).toEqual(referral);
  });

  it("a name that only ends in the same letters is not below it", () => {
    const records = [...delegated(), rec("xsub", "A", "192.0.2.4")];
    expect(ask(records, "xsub.example.test", "A")).toEqual(ok([rr("xsub.example.test", "A", "192.0.2.4")]));
  });

  it("a server outside the zone gets no glue", () => {
    expect(ask([rec("sub", "NS", "ns.provider.net"), rec("ns", "A", "192.0.2.1")], "sub.example.test", "A")).toEqual({
      rcode: "NOERROR",
      authoritative: false,
      answers: [],
      authorities: [rr("sub.example.test", "NS", "ns.provider.net")],
      additionals: [],
    });
  });

  it("nested delegations refer to the one nearest the apex, whichever was stored first", () => {
    const outer = rec("sub", "NS", "ns.provider.net");
    const inner = rec("deep.sub", "NS", "ns.other.net");
    const want = { rcode: "NOERROR", authoritative: false, answers: [], authorities: [rr("sub.example.test", "NS", "ns.provider.net")], additionals: [] };
    expect(ask([outer, inner], "x.deep.sub.example.test", "A")).toEqual(want);
    expect(ask([inner, outer], "x.deep.sub.example.test", "A")).toEqual(want);
    expect(ask([inner, outer], "deep.sub.example.test", "A")).toEqual(want);
  });

  it("a delegation elsewhere changes nothing for the rest of the zone", () => {
    const records = [...delegated(), rec("www", "A", "192.0.2.1")];
    expect(ask(records, "www.example.test", "A")).toEqual(ok([rr("www.example.test", "A", "192.0.2.1")]));
    expect(ask(records, "example.test", "NS").answers).toHaveLength(2);
  });
});
