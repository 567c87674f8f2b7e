import { describe, expect, it } from "vitest";
import { splitTxt } from "./record-data.ts";
import { checkNameConflicts, validateRecord, type RecordInput, type ValidRecord } from "./validate-record.ts";

const ZONE = "example.test";

type Case = [string, { given: RecordInput; want: Partial<ValidRecord> | { path: string; match: RegExp } }];

const valid: Case[] = [
  ["A at the apex", { given: { type: "A", name: "@", data: "192.0.2.1" }, want: { name: "@", ttl: 3600 } }],
  ["A with explicit ttl", { given: { type: "A", name: "www", data: "192.0.2.1", ttl: 60 }, want: { ttl: 60 } }],
  ["name is lowercased", { given: { type: "A", name: "WWW", data: "192.0.2.1" }, want: { name: "www" } }],
  ["absolute name inside the zone", { given: { type: "A", name: "www.Example.test", data: "192.0.2.1" }, want: { name: "www" } }],
  ["zone-suffixed name without dot", { given: { type: "A", name: "a.b.EXAMPLE.test", data: "192.0.2.1" }, want: { name: "a.b" } }],
  ["zone name itself is the apex", { given: { type: "TXT", name: "example.test", data: "x" }, want: { name: "@" } }],
  ["a name merely ending like the zone is relative", { given: { type: "A", name: "myexample.test", data: "192.0.2.1" }, want: { name: "myexample.test" } }],
  ["AAAA compressed", { given: { type: "AAAA", name: "v6", data: "2001:DB8::1" }, want: { data: "2001:db8::1" } }],
  ["MX with priority 0", { given: { type: "MX", name: "@", data: "mx.example.test.", priority: 0 }, want: { data: "mx.example.test", priority: 0 } }],
  ["MX with max priority", { given: { type: "MX", name: "@", data: "mx.other.test", priority: 65535 }, want: { priority: 65535 } }],
  ["CNAME to a service name", { given: { type: "CNAME", name: "_acme-challenge", data: "x._acme.ca.test" }, want: { type: "CNAME" } }],
  ["TXT kept whole", { given: { type: "TXT", name: "_dmarc", data: "v=DMARC1; p=none" }, want: { data: "v=DMARC1; p=none" } }],
  ["TXT longer than 255 bytes", { given: { type: "TXT", name: "k", data: "a".repeat(600) }, want: { type: "TXT" } }],
  ["TXT unicode", { given: { type: "TXT", name: "u", data: "héllo wörld" }, want: { data: "héllo wörld" } }],
  ["SRV", { given: { type: "SRV", name: "_sip._tcp", data: "10 5 5060 sip.example.test" }, want: { data: "10 5 5060 sip.example.test" } }],
  ["SRV with dot target", { given: { type: "SRV", name: "_imap._tcp", data: "0 0 0 ." }, want: { data: "0 0 0 ." } }],
  ["CAA quoted", { given: { type: "CAA", name: "@", data: '0 issue "letsencrypt.org"' }, want: { data: '0 issue "letsencrypt.org"' } }],
  ["CAA bare is quoted when stored", { given: { type: "CAA", name: "@", data: "128 issuewild ca.test" }, want: { data: '128 issuewild "ca.test"' } }],
  ["CAA quoted value with spaces", { given: { type: "CAA", name: "@", data: '0 issue "ca.test; account=1 2"' }, want: { type: "CAA" } }],
  ["CAA empty quoted issue (no CA allowed)", { given: { type: "CAA", name: "@", data: '0 issue ""' }, want: { data: '0 issue ""' } }],
  ["priority on TXT is ignored", { given: { type: "TXT", name: "x", data: "y", priority: 5 }, want: { priority: null } }],
  ["TXT of 4096 characters of two bytes each", { given: { type: "TXT", name: "x", data: "é".repeat(4096) }, want: { type: "TXT" } }],
  ["CAA iodef mailto", { given: { type: "CAA", name: "@", data: '0 iodef "mailto:sec@example.test"' }, want: { type: "CAA" } }],
  ["NS delegation", { given: { type: "NS", name: "sub", data: "ns1.other.test" }, want: { data: "ns1.other.test" } }],
  ["label of 63 characters", { given: { type: "A", name: "a".repeat(63), data: "192.0.2.1" }, want: { type: "A" } }],
  ["priority null on A is absent", { given: { type: "A", name: "n", data: "192.0.2.1", priority: null }, want: { priority: null } }],
  ["ttl at the top of the range", { given: { type: "A", name: "n", data: "192.0.2.1", ttl: 86400 }, want: { ttl: 86400 } }],
];

const invalid: Case[] = [
  ["unknown type", { given: { type: "PTR", name: "x", data: "y" }, want: { path: "body.type", match: /must be one of/ } }],
  ["lowercase type", { given: { type: "a", name: "x", data: "192.0.2.1" }, want: { path: "body.type", match: /must be one of/ } }],
  ["missing name", { given: { type: "A", data: "192.0.2.1" }, want: { path: "body.name", match: /required/ } }],
  ["missing data", { given: { type: "A", name: "x" }, want: { path: "body.data", match: /required/ } }],
  ["A not a quad", { given: { type: "A", name: "x", data: "192.0.2" }, want: { path: "body.data", match: /IPv4/ } }],
  ["A octet too big", { given: { type: "A", name: "x", data: "192.0.2.256" }, want: { path: "body.data", match: /IPv4/ } }],
  ["A is an IPv6", { given: { type: "A", name: "x", data: "::1" }, want: { path: "body.data", match: /IPv4/ } }],
  ["AAAA is an IPv4", { given: { type: "AAAA", name: "x", data: "192.0.2.1" }, want: { path: "body.data", match: /IPv6/ } }],
  ["AAAA garbage", { given: { type: "AAAA", name: "x", data: "2001:db8::g" }, want: { path: "body.data", match: /IPv6/ } }],
  ["MX without priority", { given: { type: "MX", name: "@", data: "mx.example.test" }, want: { path: "body.priority", match: /required/ } }],
  ["MX priority too big", { given: { type: "MX", name: "@", data: "mx.example.test", priority: 65536 }, want: { path: "body.priority", match: /0 to 65535/ } }],
  ["MX priority negative", { given: { type: "MX", name: "@", data: "mx.example.test", priority: -1 }, want: { path: "body.priority", match: /0 to 65535/ } }],
  ["MX priority fractional", { given: { type: "MX", name: "@", data: "mx.example.test", priority: 1.5 }, want: { path: "body.priority", match: /0 to 65535/ } }],
  ["MX to an address", { given: { type: "MX", name: "@", data: "192.0.2.1", priority: 10 }, want: { path: "body.data", match: /not an IP/ } }],
  ["MX host with underscore", { given: { type: "MX", name: "@", data: "m_x.test", priority: 10 }, want: { path: "body.data", match: /host name label/ } }],
  ["CNAME with empty label", { given: { type: "CNAME", name: "w", data: "a..test" }, want: { path: "body.data", match: /label/ } }],
  ["TXT with a newline", { given: { type: "TXT", name: "x", data: "a\nb" }, want: { path: "body.data", match: /printable/ } }],
  ["TXT too long", { given: { type: "TXT", name: "x", data: "a".repeat(4097) }, want: { path: "body.data", match: /4096/ } }],
  ["SRV with three fields", { given: { type: "SRV", name: "_sip._tcp", data: "10 5 5060" }, want: { path: "body.data", match: /priority weight port target/ } }],
  ["SRV port too big", { given: { type: "SRV", name: "_sip._tcp", data: "10 5 70000 sip.test" }, want: { path: "body.data", match: /port/ } }],
  ["SRV name without service", { given: { type: "SRV", name: "sip", data: "10 5 5060 sip.test" }, want: { path: "body.name", match: /_service\._proto/ } }],
  ["CAA flags too big", { given: { type: "CAA", name: "@", data: '256 issue "ca.test"' }, want: { path: "body.data", match: /flags/ } }],
  ["CAA unknown tag", { given: { type: "CAA", name: "@", data: '0 policy "ca.test"' }, want: { path: "body.data", match: /tag/ } }],
  ["CAA unterminated quote", { given: { type: "CAA", name: "@", data: '0 issue "ca.test' }, want: { path: "body.data", match: /quoted/ } }],
  ["CAA bare value with space", { given: { type: "CAA", name: "@", data: "0 issue ca test" }, want: { path: "body.data", match: /bare/ } }],
  ["CAA iodef not a URL", { given: { type: "CAA", name: "@", data: '0 iodef "sec@example.test"' }, want: { path: "body.data", match: /iodef/ } }],
  ["NS to an address", { given: { type: "NS", name: "sub", data: "192.0.2.53" }, want: { path: "body.data", match: /not an IP/ } }],
  ["ttl below 60", { given: { type: "A", name: "x", data: "192.0.2.1", ttl: 59 }, want: { path: "body.ttl", match: /60 to 86400/ } }],
  ["ttl above 86400", { given: { type: "A", name: "x", data: "192.0.2.1", ttl: 86401 }, want: { path: "body.ttl", match: /60 to 86400/ } }],
  ["ttl as string", { given: { type: "A", name: "x", data: "192.0.2.1", ttl: "3600" }, want: { path: "body.ttl", match: /integer/ } }],
  ["label of 64 characters", { given: { type: "A", name: "a".repeat(64), data: "192.0.2.1" }, want: { path: "body.name", match: /1 to 63/ } }],
  ["label with a space", { given: { type: "A", name: "a b", data: "192.0.2.1" }, want: { path: "body.name", match: /label/ } }],
  ["wildcard label", { given: { type: "A", name: "*", data: "192.0.2.1" }, want: { path: "body.name", match: /label/ } }],
  ["empty label", { given: { type: "A", name: "a..b", data: "192.0.2.1" }, want: { path: "body.name", match: /label/ } }],
  ["name with a final dot", { given: { type: "A", name: "www.example.test.", data: "192.0.2.1" }, want: { path: "body.name", match: /label ""/ } }],
  ["label with a leading hyphen", { given: { type: "A", name: "-a", data: "192.0.2.1" }, want: { path: "body.name", match: /label/ } }],
  ["CAA tag in capitals", { given: { type: "CAA", name: "@", data: "0 ISSUE ca.test" }, want: { path: "body.data", match: /lowercase/ } }],
  ["CAA with two spaces", { given: { type: "CAA", name: "@", data: "0  issue ca.test" }, want: { path: "body.data", match: /single spaces|flags|tag/ } }],
  ["SRV with leading zeros", { given: { type: "SRV", name: "_sip._tcp", data: "010 5 5060 sip.test" }, want: { path: "body.data", match: /priority/ } }],
  ["SRV with a tab", { given: { type: "SRV", name: "_sip._tcp", data: "10\t5 5060 sip.test" }, want: { path: "body.data", match: /single spaces/ } }],
  ["AAAA with a zone index", { given: { type: "AAAA", name: "x", data: "fe80::1%eth0" }, want: { path: "body.data", match: /IPv6/ } }],
  ["MX host of 254 characters with the dot", { given: { type: "MX", name: "@", data: `${Array(4).fill("a".repeat(62)).join(".")}.a.`, priority: 1 }, want: { path: "body.data", match: /253/ } }],
  ["name too long", { given: { type: "A", name: Array(5).fill("a".repeat(50)).join("."), data: "192.0.2.1" }, want: { path: "body.name", match: /253/ } }],
  ["TXT of 4097 characters", { given: { type: "TXT", name: "x", data: "é".repeat(4097) }, want: { path: "body.data", match: /4096 characters/ } }],
];

describe("validateRecord accepts", () => {
  it.each(valid)("%s", (_, { given, want }) => {
    const result = validateRecord(given, ZONE);
    expect(result).toMatchObject({ ok: true, record: want });
  });
});

describe("validateRecord rejects", () => {
  it.each(invalid)("%s", (_, { given, want }) => {
    const result = validateRecord(given, ZONE);
    const { path, match } = want as { path: string; match: RegExp };
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toContainEqual({ path, message: expect.stringMatching(match) });
  });

  it("reports every problem at once", () => {
    const result = validateRecord({ type: "MX", name: "a b", data: "", ttl: 1 }, ZONE);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path).sort()).toEqual(["body.data", "body.name", "body.priority", "body.ttl"]);
  });
});

describe("checkNameConflicts", () => {
  const a = { type: "A" as const, data: "192.0.2.1", priority: null };
  const cname = { type: "CNAME" as const, data: "t.test", priority: null };
  const cases: [string, { candidate: typeof a | typeof cname; existing: (typeof a | typeof cname)[]; want: RegExp | null }][] = [
    ["CNAME at an empty name", { candidate: cname, existing: [], want: null }],
    ["CNAME beside an A", { candidate: cname, existing: [a], want: /other records/ }],
    ["second CNAME", { candidate: { ...cname, data: "u.test" }, existing: [cname], want: /already has a CNAME/ }],
    ["A beside a CNAME", { candidate: a, existing: [cname], want: /has a CNAME/ }],
    ["second A with other data", { candidate: { ...a, data: "192.0.2.2" }, existing: [a], want: null }],
    ["identical A", { candidate: a, existing: [a], want: /identical/ }],
  ];
  it.each(cases)("%s", (_, { candidate, existing, want }) => {
    const errors = checkNameConflicts({ ...candidate, name: "www" }, existing, ZONE);
    if (want === null) expect(errors).toEqual([]);
    else expect(errors).toEqual([{ path: expect.any(String), message: expect.stringMatching(want) }]);
  });
});

describe("checkNameConflicts: rules that depend on the zone", () => {
  const cname = { type: "CNAME" as const, data: "t.test", priority: null };
  it("a CNAME at the apex conflicts with its SOA and NS", () => {
    expect(checkNameConflicts({ ...cname, name: "@" }, [], ZONE)).toEqual([{ path: "body.name", message: expect.stringMatching(/apex/) }]);
  });
  it("a name whose full form passes 253 characters conflicts with the zone's length", () => {
    const name = Array(4).fill("a".repeat(60)).join("."); // 243 characters, 256 with ".example.test"
    expect(validateRecord({ type: "A", name, data: "192.0.2.1" }, ZONE).ok).toBe(true);
    expect(checkNameConflicts({ ...cname, type: "A", name }, [], ZONE)).toEqual([{ path: "body.name", message: expect.stringMatching(/253/) }]);
    expect(checkNameConflicts({ ...cname, type: "A", name: name.slice(3) }, [], ZONE)).toEqual([]);
  });
});

describe("splitTxt", () => {
  const cases: [string, { given: string; want: number[] }][] = [
    ["short text is one string", { given: "hello", want: [5] }],
    ["exactly 255 bytes", { given: "a".repeat(255), want: [255] }],
    ["256 bytes make two", { given: "a".repeat(256), want: [255, 1] }],
    ["600 bytes", { given: "a".repeat(600), want: [255, 255, 90] }],
    ["never splits a UTF-8 sequence", { given: "a".repeat(254) + "é", want: [254, 2] }],
  ];
  it.each(cases)("%s", (_, { given, want }) => {
    const chunks = splitTxt(given);
    expect(chunks.map((c) => c.length)).toEqual(want);
    expect(Buffer.concat(chunks).toString()).toBe(given);
  });
});

// Exact answers, so a changed path, message or boundary shows: what the API puts in `details`.
describe("validateRecord: exact problems and boundaries", () => {
  const errorsOf = (given: RecordInput) => {
    const r = validateRecord(given, ZONE);
    return r.ok ? [] : r.errors;
  };

  it("a name of 253 characters is taken, of 254 refused", () => {
    const name253 = ["a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61)].join(".");
    expect(name253).toHaveLength(253);
    expect(validateRecord({ type: "A", name: name253, data: "192.0.2.1" }, ZONE)).toEqual({ ok: true, record: { type: "A", name: name253, data: "192.0.2.1", priority: null, ttl: 3600 } });
    expect(errorsOf({ type: "A", name: `${name253}e`, data: "192.0.2.1" })).toEqual([{ path: "body.name", message: "must be at most 253 characters" }]);
  });

  it("an unknown type names every type", () => {
    expect(errorsOf({ type: "PTR", name: "x", data: "y" })).toEqual([{ path: "body.type", message: "must be one of A, AAAA, TXT, MX, CNAME, NS, SRV, CAA" }]);
  });

  it("missing and null are the same for priority (required on MX) and ttl (the default)", () => {
    expect(errorsOf({ type: "MX", name: "@", data: "mx.example.test", priority: null })).toEqual([{ path: "body.priority", message: "is required for MX records" }]);
    expect(errorsOf({ type: "MX", name: "@", data: "mx.example.test" })).toEqual([{ path: "body.priority", message: "is required for MX records" }]);
    expect(validateRecord({ type: "A", name: "n", data: "192.0.2.1", ttl: null }, ZONE)).toEqual({ ok: true, record: { type: "A", name: "n", data: "192.0.2.1", priority: null, ttl: 3600 } });
  });

  it("empty data is missing data", () => {
    expect(errorsOf({ type: "TXT", name: "x", data: "" })).toEqual([{ path: "body.data", message: "is required" }]);
  });

  it("an SRV name must start with _service._proto; a missing one is only missing", () => {
    expect(errorsOf({ type: "SRV", data: "10 5 5060 sip.example.test" })).toEqual([{ path: "body.name", message: "is required" }]);
    expect(errorsOf({ type: "SRV", name: "www._sip._tcp", data: "10 5 5060 sip.example.test" })).toEqual([
      { path: "body.name", message: "an SRV name must start with _service._proto, like _sip._tcp" },
    ]);
    expect(errorsOf({ type: "SRV", name: "_sip.tcp", data: "10 5 5060 sip.example.test" })).toHaveLength(1);
  });
});

describe("checkNameConflicts: against several records at the name", () => {
  const A1 = { type: "A" as const, data: "192.0.2.1", priority: null };
  const A2 = { type: "A" as const, data: "192.0.2.2", priority: null };
  const TXT = { type: "TXT" as const, data: "192.0.2.1", priority: null };
  const CNAME = { type: "CNAME" as const, data: "t.test", priority: null };
  const MX10 = { type: "MX" as const, data: "mx.example.test", priority: 10 };

  it("other types at the apex are fine", () => {
    expect(checkNameConflicts({ ...A1, name: "@" }, [], ZONE)).toEqual([]);
  });

  it("a CNAME beside a CNAME among others is named as such", () => {
    expect(checkNameConflicts({ ...CNAME, name: "www" }, [A1, CNAME], ZONE)).toEqual([
      { path: "body.name", message: "www already has a CNAME; a CNAME must stand alone at its name" },
    ]);
    expect(checkNameConflicts({ ...CNAME, name: "www" }, [A1, TXT], ZONE)).toEqual([
      { path: "body.name", message: "www already has other records; a CNAME must stand alone at its name" },
    ]);
  });

  it("nothing joins a CNAME, wherever it is in the list", () => {
    expect(checkNameConflicts({ ...A2, name: "www" }, [TXT, CNAME], ZONE)).toEqual([{ path: "body.name", message: "www has a CNAME, which must stand alone at its name" }]);
  });

  it("an identical record among others is refused; same data under another type or priority is not identical", () => {
    expect(checkNameConflicts({ ...A1, name: "www" }, [A2, A1], ZONE)).toEqual([{ path: "body.data", message: "an identical A record already exists at www" }]);
    expect(checkNameConflicts({ ...A2, name: "www" }, [A1, TXT], ZONE)).toEqual([]);
    expect(checkNameConflicts({ ...TXT, name: "www" }, [A1], ZONE)).toEqual([]);
    expect(checkNameConflicts({ ...MX10, name: "@" }, [{ ...MX10, priority: 20 }], ZONE)).toEqual([]);
  });
});
