// The packet cache on real loopback sockets: a repeated question is served from the cache
// (the counter moves) with exactly the bytes the uncached path gives for that very query,
// ID and 0x20 spelling included, and a committed change is in the next answer.
import dgram from "node:dgram";
import net from "node:net";
import { decode, encode } from "dns-packet";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type DnsServer } from "./authoritative-server.ts";
import { EXAMPLE_ZONE, createExampleZone } from "./example-zone.ts";
import { PacketCache, respondCached } from "./packet-cache.ts";
import { respond } from "./respond.ts";
import type { SqlDnsRecordRepository } from "./zone-repository.ts";
import { queryPacket } from "./wire-client.ts";
import { ZoneCache } from "./zone-cache.ts";

let server: DnsServer;
let repository: SqlDnsRecordRepository;
beforeAll(async () => {
  ({ repository } = await createExampleZone());
  server = await startDnsServer({ host: "127.0.0.1", port: 0, repository });
});
afterAll(() => server.close());

function exchangeUdp(message: Buffer): Promise<Buffer> {
  const socket = dgram.createSocket("udp4");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error("no UDP answer within 5 s"));
    }, 5000);
    socket.once("message", (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    });
    socket.send(message, server.udpPort, "127.0.0.1");
  });
}

function exchangeTcp(message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.tcpPort, "127.0.0.1");
    let pending = Buffer.alloc(0);
    socket.on("connect", () => {
      const frame = Buffer.alloc(2);
      frame.writeUInt16BE(message.length);
      socket.write(Buffer.concat([frame, message]));
    });
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        socket.end();
        resolve(pending.subarray(2, 2 + pending.readUInt16BE(0)));
      }
    });
    socket.on("error", reject);
  });
}

const exchange = { udp: exchangeUdp, tcp: exchangeTcp };
const message = (name: string, type: string, id: number, edns?: number) => encode(queryPacket({ name, type, id, edns }));
// The uncached path: a fresh zone cache and no packet cache, for the very same bytes.
const uncached = async (query: Buffer, transport: "udp" | "tcp") => (await respond(query, { zones: new ZoneCache(repository), transport }))!;

describe("packet cache", () => {
  const questions: [string, string, number?][] = [
    ["web.example.test", "A"],
    ["web.example.test", "A", 1232],
    ["web.example.test", "AAAA"],
    ["www.example.test", "A"],
    ["example.test", "MX"],
    ["example.test", "SOA"],
    ["example.test", "NS"],
    ["example.test", "ANY"],
    ["s1._domainkey.example.test", "TXT"],
    ["big.example.test", "TXT"],
    ["big.example.test", "TXT", 1232],
    ["big.example.test", "TXT", 700],
    ["nothere.example.test", "A"],
    ["_domainkey.example.test", "TXT"],
    ["host.sub.example.test", "A"],
    ["loop1.example.test", "A"],
    ["dangling.example.test", "A"],
    ["www.elsewhere.test", "A"],
  ];

  it.each(questions.flatMap(([name, type, edns]) => (["udp", "tcp"] as const).map((transport) => [transport, name, type, edns] as const)))(
    "over %s answers %s %s (EDNS %s) from the cache byte for byte as uncached",
    async (transport, name, type, edns) => {
      const spellings = [name, name.toUpperCase(), name.replace(/[a-z]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c))];
      const hitsBefore = server.packetCache().hits;
      for (const [i, spelling] of spellings.entries()) {
        const query = message(spelling, type, 4000 + i * 7919, edns);
        const reply = await exchange[transport](query);
        expect(reply.equals(await uncached(query, transport))).toBe(true);
      }
      // The first spelling filled the cache; the other two were served from it.
      expect(server.packetCache().hits - hitsBefore).toBe(2);
    },
  );

  // Names are compressed against the question (compress-names.ts), so the CNAME target's zone
  // part points at the asker's spelling: exactly what NSD 4.6 and PowerDNS 4.7 send for this query.
  it("echoes a 0x20 spelling in the question and the owner names after a lowercase query filled it", async () => {
    await exchangeUdp(message("www.example.test", "A", 1));
    const hitsBefore = server.packetCache().hits;
    const reply = decode(await exchangeUdp(message("wWw.ExAmPlE.tEsT", "A", 2)));
    expect(server.packetCache().hits - hitsBefore).toBe(1);
    expect(reply.id).toBe(2);
    expect(reply.questions).toMatchObject([{ name: "wWw.ExAmPlE.tEsT", type: "A" }]);
    expect(reply.answers).toMatchObject([
      { name: "wWw.ExAmPlE.tEsT", type: "CNAME", data: "web.ExAmPlE.tEsT" },
      { name: "web.ExAmPlE.tEsT", type: "A", data: "192.0.2.2" },
    ]);
  });

  it("answers a record created and then deleted through the repository at once, though the question was cached", async () => {
    const ask = async (id: number) => decode(await exchangeUdp(message("fresh.example.test", "A", id))) as { rcode?: string; answers?: { data: unknown }[] };
    expect((await ask(1)).rcode).toBe("NXDOMAIN");
    expect((await ask(2)).rcode).toBe("NXDOMAIN");
    const record = await repository.insertRecord(EXAMPLE_ZONE, { type: "A", name: "fresh", data: "192.0.2.77", priority: null, ttl: 60 });
    expect((await ask(3)).answers).toMatchObject([{ data: "192.0.2.77" }]);
    expect((await ask(4)).answers).toMatchObject([{ data: "192.0.2.77" }]);
    await repository.deleteRecord(EXAMPLE_ZONE, record.id);
    expect((await ask(5)).rcode).toBe("NXDOMAIN");
  });

  it("answers queries it does not key (two questions, a name with a space) through the uncached path", async () => {
    const two = encode({ type: "query", id: 9, flags: 0, questions: [{ name: "web.example.test", type: "A" }, { name: "mx.example.test", type: "A" }] });
    const spaced = message("we b.example.test", "A", 10);
    for (const query of [two, two, spaced, spaced]) {
      const hitsBefore = server.packetCache().hits;
      expect((await exchangeUdp(query)).equals(await uncached(query, "udp"))).toBe(true);
      expect(server.packetCache().hits).toBe(hitsBefore);
    }
  });

  // An EDNS query whose OPT record carries these options (code, data), framed by hand.
  const withOptions = (name: string, id: number, options: [number, Buffer][]) => {
    const plain = message(name, "A", id, 1232);
    const rdata = Buffer.concat(options.map(([code, data]) => Buffer.concat([Buffer.from([code >> 8, code & 0xff, data.length >> 8, data.length & 0xff]), data])));
    const query = Buffer.concat([plain, rdata]);
    query.writeUInt16BE(rdata.length, plain.length - 2);
    return query;
  };

  it("keys a query without its DNS cookie, which dig sends fresh every time", async () => {
    await exchangeUdp(withOptions("mx.example.test", 20, [[10, Buffer.from("0102030405060708", "hex")]]));
    const hitsBefore = server.packetCache().hits;
    const query = withOptions("mX.example.TEST", 21, [[10, Buffer.from("a1a2a3a4a5a6a7a8", "hex")]]);
    expect((await exchangeUdp(query)).equals(await uncached(query, "udp"))).toBe(true);
    expect(server.packetCache().hits - hitsBefore).toBe(1);
  });

  it("keys other EDNS options and malformed cookies by their bytes", async () => {
    const padded = (id: number, length: number) => withOptions("mx.example.test", id, [[12, Buffer.alloc(length)]]);
    await exchangeUdp(padded(30, 8));
    let hitsBefore = server.packetCache().hits;
    expect((await exchangeUdp(padded(31, 16))).equals(await uncached(padded(31, 16), "udp"))).toBe(true);
    expect(server.packetCache().hits).toBe(hitsBefore);
    expect((await exchangeUdp(padded(32, 8))).equals(await uncached(padded(32, 8), "udp"))).toBe(true);
    expect(server.packetCache().hits - hitsBefore).toBe(1);

    // A cookie whose length runs past the record is not keyed as a cookie: whatever the
    // uncached path makes of it, it gets, not the well-formed query's cached answer.
    const good = withOptions("mx.example.test", 33, [[10, Buffer.alloc(8, 1)]]);
    await exchangeUdp(good);
    const bad = Buffer.from(good);
    bad.writeUInt16BE(200, bad.length - 8 - 2);
    hitsBefore = server.packetCache().hits;
    expect((await exchangeUdp(bad)).equals((await uncached(bad, "udp"))!)).toBe(true);
    expect(server.packetCache().hits).toBe(hitsBefore);
  });

  it("holds at most its byte budget, dropping the oldest entries first", () => {
    const cache = new PacketCache(100, 100);
    const entry = (bytes: number) => ({ answer: Buffer.alloc(bytes), echoes: [] });
    cache.sync(1);
    cache.set("a", entry(40));
    cache.set("b", entry(40));
    cache.set("c", entry(40));
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    cache.set("d", entry(200));
    expect(cache.get("d")).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it("holds at most its cap, dropping the oldest entry first", () => {
    const cache = new PacketCache(2);
    const entry = { answer: Buffer.alloc(12), echoes: [] };
    cache.sync(1);
    cache.set("a", entry);
    cache.set("b", entry);
    cache.set("c", entry);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBe(entry);
    cache.sync(2);
    expect(cache.size).toBe(0);
  });
});

// Every answer the cache gives must be the uncached path's for the very same bytes. Each run
// asks one generated query several times (new ID, case and cookie each time, so mostly hits)
// mixed with variants that differ from it in exactly one part (name, type, header bits, EDNS
// size, DO, whether there is a cookie, transport): a key that left any part out would serve
// the variant the first query's cached answer, and the comparison below would fail.
describe("packet cache against the uncached path, generated queries", () => {
  const names = ["example.test", "web.example.test", "www.example.test", "mx.example.test", "s1._domainkey.example.test", "nothere.example.test", "sub.example.test", "x.sub.example.test", "other.test", "big.example.test"];
  const types = ["A", "AAAA", "MX", "TXT", "CNAME", "NS", "SOA", "SRV", "CAA", "ANY"] as const;
  const spelled = (name: string, mask: number) => [...name].map((c, i) => ((mask >> i % 30) & 1 ? c.toUpperCase() : c)).join("");
  const query = fc.record({
    name: fc.constantFrom(...names),
    type: fc.constantFrom(...types),
    // RD, CD, AD and the opcode bits (IQUERY, STATUS: answered NOTIMP) of the header.
    flags: fc.constantFrom(0, 0x0100, 0x0010, 0x0020, 0x0110, 0x0800, 0x1000),
    edns: fc.constantFrom(undefined, 512, 1232, 4096, 100),
    dnssecOk: fc.boolean(),
    cookie: fc.boolean(),
    transport: fc.constantFrom("udp" as const, "tcp" as const),
  });
  type Query = typeof query extends fc.Arbitrary<infer T> ? T : never;
  const ask = fc.record({
    change: fc.oneof(fc.constant(undefined), fc.tuple(fc.constantFrom("name", "type", "flags", "edns", "dnssecOk", "cookie", "transport" as const), query)),
    id: fc.integer({ min: 0, max: 0xffff }),
    mask: fc.integer({ min: 0, max: 2 ** 30 - 1 }),
    cookie: fc.uint8Array({ minLength: 8, maxLength: 8 }),
  });
  const encodeQuery = (q: Query, { id, mask, cookie }: { id: number; mask: number; cookie: Uint8Array }) =>
    encode({
      type: "query",
      id,
      flags: q.flags,
      questions: [{ name: spelled(q.name, mask), type: q.type as never, class: "IN" }],
      additionals:
        q.edns === undefined
          ? []
          : [{ name: ".", type: "OPT", udpPayloadSize: q.edns, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: q.dnssecOk, options: q.cookie ? [{ code: 10, data: Buffer.from(cookie) } as never] : [] }],
    });

  it("serves every generated query exactly as respond does, mostly from the cache", async () => {
    const zones = new ZoneCache(repository);
    const cache = new PacketCache();
    let asked = 0;
    await fc.assert(
      fc.asyncProperty(query, fc.array(ask, { minLength: 2, maxLength: 8 }), async (base, asks) => {
        for (const a of asks) {
          const q = a.change ? { ...base, [a.change[0]]: a.change[1][a.change[0]] } : base;
          const bytes = encodeQuery(q, a);
          const cached = await respondCached(bytes, { zones, transport: q.transport }, cache);
          const expected = await respond(bytes, { zones: new ZoneCache(repository), transport: q.transport });
          expect(cached && expected && cached.equals(expected)).toBe(true);
          asked++;
        }
      }),
      { numRuns: 300 },
    );
    // The property is about hits: most queries must have been answered from the cache.
    expect(cache.hits).toBeGreaterThan(asked / 3);
  });
});
