// The server on real loopback sockets, read through a raw client that shows flags and
// sections (wire-client.ts). Resolver-level behaviour is in resolver.test.ts, dig in dig.test.ts.
import dgram from "node:dgram";
import { decode, encode } from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type DnsServer } from "./authoritative-server.ts";
import { BIG_TXT_SET, EXAMPLE_ZONE, LONG_TXT, createExampleZone } from "./example-zone.ts";
import type { SqlDnsRecordRepository } from "./zone-repository.ts";
import { queryPacket, queryTcp, queryUdp } from "./wire-client.ts";

let server: DnsServer;
let repository: SqlDnsRecordRepository;
beforeAll(async () => {
  ({ repository } = await createExampleZone());
  server = await startDnsServer({ host: "127.0.0.1", port: 0, repository });
});
afterAll(() => server.close());

const udp = (name: string, type: string, edns?: number) => queryUdp(server.udpPort, { name, type, edns });
const datas = (packet: { answers?: { type: string; data?: unknown }[] }) => (packet.answers ?? []).map((a) => a.data);

describe("authoritative answers", () => {
  it("binds UDP and TCP on one port", () => {
    expect(server.udpPort).toBeGreaterThan(0);
    expect(server.tcpPort).toBe(server.udpPort);
  });

  it("answers A with the AA flag and the stored TTL", async () => {
    const reply = await udp("web.example.test", "A");
    expect(reply).toMatchObject({ rcode: "NOERROR", flag_aa: true, flag_tc: false });
    expect(reply.answers).toMatchObject([{ name: "web.example.test", type: "A", ttl: 300, data: "192.0.2.2" }]);
  });

  it.each([
    ["AAAA", "web.example.test", ["2001:db8::2"]],
    ["MX", "example.test", [{ preference: 10, exchange: "mx.example.test" }]],
    ["SRV", "_sip._tcp.example.test", [{ priority: 10, weight: 5, port: 5060, target: "sip.example.test" }]],
    ["CAA", "example.test", [{ flags: 0, tag: "issue", value: "ca.test", issuerCritical: false }]],
    ["NS", "sub.example.test", undefined],
  ])("answers %s", async (type, name, want) => {
    const reply = await udp(name, type);
    if (want) expect(datas(reply)).toEqual(want);
  });

  it("splits a long TXT into 255-byte strings and serves it whole", async () => {
    const reply = await udp("s1._domainkey.example.test", "TXT", 1232);
    const strings = datas(reply)[0] as Buffer[];
    expect(strings.map((s) => s.length)).toEqual([255, 255, 90]);
    expect(Buffer.concat(strings).toString()).toBe(LONG_TXT);
  });

  it("synthesizes SOA and NS at the apex, and the serial follows record changes", async () => {
    const before = await udp("example.test", "SOA");
    expect(before.answers).toMatchObject([{ type: "SOA", data: { mname: "ns1.example.test", rname: "hostmaster.example.test" } }]);
    expect(datas(await udp("example.test", "NS"))).toEqual(["ns1.example.test", "ns2.example.test"]);
    const record = await repository.insertRecord(EXAMPLE_ZONE, { type: "A", name: "new", data: "192.0.2.9", priority: null, ttl: 60 });
    const after = await udp("example.test", "SOA");
    const serial = (p: typeof before) => (datas(p)[0] as { serial: number }).serial;
    expect(serial(after)).toBeGreaterThan(serial(before));
    expect(datas(await udp("new.example.test", "A"))).toEqual(["192.0.2.9"]);
    await repository.deleteRecord(EXAMPLE_ZONE, record.id);
    expect((await udp("new.example.test", "A")).rcode).toBe("NXDOMAIN");
  });

  it("chases a CNAME inside the zone", async () => {
    const reply = await udp("www.example.test", "A");
    expect(reply.answers).toMatchObject([
      { name: "www.example.test", type: "CNAME", data: "web.example.test" },
      { name: "web.example.test", type: "A", data: "192.0.2.2" },
    ]);
  });

  it("returns a CNAME to another zone without chasing it", async () => {
    const reply = await udp("ext.example.test", "A");
    expect(reply).toMatchObject({ rcode: "NOERROR", flag_aa: true, answers: [{ type: "CNAME", data: "target.other.test" }] });
  });

  it("stops a CNAME loop", async () => {
    const reply = await udp("loop1.example.test", "A");
    expect(reply.answers?.map((a) => a.type)).toEqual(["CNAME", "CNAME"]);
  });

  it("gives NXDOMAIN with the SOA for a name that does not exist", async () => {
    const reply = await udp("nope.example.test", "A");
    expect(reply).toMatchObject({ rcode: "NXDOMAIN", flag_aa: true, answers: [] });
    expect(reply.authorities).toMatchObject([{ type: "SOA", name: "example.test", ttl: 300 }]);
  });

  it("gives NXDOMAIN after a CNAME to a missing name in the zone (RFC 6604)", async () => {
    const reply = await udp("dangling.example.test", "A");
    expect(reply).toMatchObject({ rcode: "NXDOMAIN", answers: [{ type: "CNAME" }] });
  });

  it.each([
    ["an existing name without that type", "web.example.test", "TXT"],
    ["an empty non-terminal", "_domainkey.example.test", "TXT"],
    ["a type never stored", "example.test", "PTR"],
  ])("gives NODATA (NOERROR, SOA in authority) for %s", async (_, name, type) => {
    const reply = await udp(name, type);
    expect(reply).toMatchObject({ rcode: "NOERROR", flag_aa: true, answers: [] });
    expect(reply.authorities).toMatchObject([{ type: "SOA" }]);
  });

  it("refers below a delegation, with glue and without AA", async () => {
    const reply = await udp("host.sub.example.test", "A");
    expect(reply).toMatchObject({ rcode: "NOERROR", flag_aa: false, answers: [] });
    expect(reply.authorities).toMatchObject([{ type: "NS", name: "sub.example.test", data: "ns1.sub.example.test" }]);
    expect(reply.additionals).toMatchObject([{ type: "A", name: "ns1.sub.example.test", data: "192.0.2.53" }]);
  });

  it("refuses names outside every hosted zone, without AA", async () => {
    const reply = await udp("example.org", "A");
    expect(reply).toMatchObject({ rcode: "REFUSED", flag_aa: false, answers: [] });
  });

  it("matches names case-insensitively and echoes the question's spelling", async () => {
    const reply = await udp("WeB.ExAmple.TEST", "A");
    expect(reply.questions).toMatchObject([{ name: "WeB.ExAmple.TEST" }]);
    expect(reply.answers).toMatchObject([{ name: "WeB.ExAmple.TEST", data: "192.0.2.2" }]);
  });

  it("answers ANY with one RRset (RFC 8482)", async () => {
    const reply = await udp("web.example.test", "ANY");
    expect(new Set(reply.answers?.map((a) => a.type)).size).toBe(1);
  });
});

describe("truncation and TCP", () => {
  it("sets TC over UDP when the answer exceeds 512 bytes and no EDNS is offered", async () => {
    const reply = await udp("big.example.test", "TXT");
    expect(reply).toMatchObject({ flag_tc: true, flag_aa: true, answers: [] });
  });

  it("caps an advertised EDNS size at 1232 bytes", async () => {
    const reply = await udp("big.example.test", "TXT", 4096);
    expect(reply.flag_tc).toBe(true);
    expect(reply.additionals).toMatchObject([{ type: "OPT", udpPayloadSize: 1232 }]);
  });

  it("fits an answer under 1232 bytes when EDNS allows it", async () => {
    const reply = await udp("s1._domainkey.example.test", "TXT", 1232);
    expect(reply.flag_tc).toBe(false);
    expect((await udp("s1._domainkey.example.test", "TXT")).flag_tc).toBe(true);
  });

  it("serves the full answer over TCP, several queries on one connection in order", async () => {
    const [big, web] = await queryTcp(server.tcpPort, [
      { name: "big.example.test", type: "TXT", id: 1 },
      { name: "web.example.test", type: "A", id: 2 },
    ]);
    expect(big).toMatchObject({ id: 1, flag_tc: false, flag_aa: true });
    expect(datas(big).map((d) => Buffer.concat(d as Buffer[]).toString()).sort()).toEqual([...BIG_TXT_SET].sort());
    expect(web).toMatchObject({ id: 2, answers: [{ data: "192.0.2.2" }] });
  });
});

describe("robustness", () => {
  it("ignores malformed UDP packets and keeps serving", async () => {
    const socket = dgram.createSocket("udp4");
    for (const junk of [Buffer.from([1, 2, 3]), Buffer.alloc(12, 0xff), Buffer.from("not dns at all, really not")]) {
      await new Promise((resolve) => socket.send(junk, server.udpPort, "127.0.0.1", resolve));
    }
    socket.close();
    expect((await udp("web.example.test", "A")).rcode).toBe("NOERROR");
  });

  it("does not answer a response packet", async () => {
    // Sent first on the same socket as a real query: if it were answered, that answer
    // would arrive first, since both take the same path in arrival order.
    const socket = dgram.createSocket("udp4");
    const first = new Promise<Buffer>((resolve) => socket.once("message", resolve));
    const response = encode({ ...queryPacket({ name: "web.example.test", type: "A", id: 1 }), type: "response" });
    socket.send(response, server.udpPort, "127.0.0.1");
    socket.send(encode(queryPacket({ name: "web.example.test", type: "A", id: 2 })), server.udpPort, "127.0.0.1");
    const reply = decode(await first);
    socket.close();
    expect(reply.id).toBe(2);
  });

  it("skips a malformed TCP message and answers the next on the same connection", async () => {
    const answers = await queryTcp(server.tcpPort, [Buffer.from("garbage!"), { name: "web.example.test", type: "A", id: 7 }], 1);
    expect(answers).toMatchObject([{ id: 7, rcode: "NOERROR" }]);
  });

  it("answers FORMERR to a query without a question", async () => {
    const empty = encode({ type: "query", id: 9, flags: 0, questions: [] });
    expect(await queryUdp(server.udpPort, empty)).toMatchObject({ id: 9, rcode: "FORMERR" });
  });
});
