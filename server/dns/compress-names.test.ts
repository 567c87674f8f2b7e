// Name compression of encoded answers: the compressed message decodes to the same message
// (names compare case-insensitively, as DNS does), owner-name pointers only go back and below 0x4000,
// SRV targets stay whole, and answers are as small as NSD's for the same question.
import { decode, encode, type Packet } from "dns-packet";
import { describe, expect, it } from "vitest";
import { compressNames } from "./compress-names.ts";
import { createExampleZone } from "./example-zone.ts";
import { respond } from "./respond.ts";
import { queryPacket } from "./wire-client.ts";
import { ZoneCache } from "./zone-cache.ts";

// Decoded, with every name (owners and names in data) lowercased, so a pointer into the asker's spelling compares equal.
const lowered = (message: Buffer) =>
  JSON.parse(
    JSON.stringify(decode(message), (key, value) => (typeof value === "string" && /[a-z]/i.test(value) && key !== "type" && key !== "class" ? value.toLowerCase() : value)),
  );

/** The pointers that end the question's and the records' owner names (record data is skipped by its length). */
function ownerPointers(message: Buffer): { at: number; to: number }[] {
  const found: { at: number; to: number }[] = [];
  let i = 12;
  const name = () => {
    for (;;) {
      const length = message[i];
      if (length >= 0xc0) {
        found.push({ at: i, to: message.readUInt16BE(i) & 0x3fff });
        i += 2;
        return;
      }
      i += length + 1;
      if (length === 0) return;
    }
  };
  for (let q = 0; q < message.readUInt16BE(4); q++, i += 4) name();
  const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10);
  for (let r = 0; r < records; r++) {
    name();
    i += 10 + message.readUInt16BE(i + 8);
  }
  expect(i).toBe(message.length);
  return found;
}

describe("compressNames", () => {
  const names = ["example.test", "web.example.test", "www.example.test", "mx.example.test", "s1._domainkey.example.test", "_sip._tcp.example.test", "sub.example.test", "x.sub.example.test", "nothere.example.test", "ext.example.test", "loop1.example.test", "big.example.test"];
  const types = ["A", "AAAA", "MX", "TXT", "CNAME", "NS", "SOA", "SRV", "CAA", "ANY"];

  it("keeps every answer of the example zone the same message, in 0x20 spellings too, and never longer", async () => {
    const { repository } = await createExampleZone();
    const zones = new ZoneCache(repository);
    let shorter = 0;
    for (const name of names) {
      for (const type of types) {
        for (const spelling of [name, name.toUpperCase()]) {
          const query = encode(queryPacket({ name: spelling, type, id: 7, edns: 4096 }));
          const compressed = (await respond(query, { zones, transport: "tcp" }))!;
          // The uncompressed answer dns-packet encodes for the same decoded message.
          const plain = encode(decode(compressed) as Packet);
          expect(lowered(compressed)).toEqual(lowered(plain));
          expect(compressed.length).toBeLessThanOrEqual(plain.length);
          if (compressed.length < plain.length) shorter++;
          for (const { at, to } of ownerPointers(compressed)) expect(to).toBeLessThan(at);
        }
      }
    }
    expect(shorter).toBeGreaterThan(100);
  });

  it("answers as small as NSD 4.6 does (measured with dig +noedns)", async () => {
    const { repository } = await createExampleZone();
    const zones = new ZoneCache(repository);
    const size = async (name: string, type: string) => (await respond(encode(queryPacket({ name, type, id: 1 })), { zones, transport: "udp" }))!.length;
    expect(await size("web.example.test", "A")).toBe(50);
    expect(await size("example.test", "MX")).toBe(49);
    expect(await size("nothere.example.test", "A")).toBe(89);
    expect(await size("example.test", "SOA")).toBe(81);
    expect(await size("_sip._tcp.example.test", "SRV")).toBe(76);
  });

  it("sends whole over plain UDP an answer that fits 512 bytes only compressed, as NSD does", async () => {
    const many = Array.from({ length: 28 }, (_, i) => ({ type: "A", name: "many", data: `192.0.2.${i + 1}` }));
    const { repository } = await createExampleZone(many);
    const reply = (await respond(encode(queryPacket({ name: "many.example.test", type: "A", id: 3 })), { zones: new ZoneCache(repository), transport: "udp" }))!;
    const decoded = decode(reply);
    expect(decoded.flag_tc).toBe(false);
    expect(decoded.answers).toHaveLength(28);
    expect(reply.length).toBeLessThanOrEqual(512);
    // The same message uncompressed would not fit, and was truncated before compression.
    expect(encode(decoded as Packet).length).toBeGreaterThan(512);
  });

  it("leaves an SRV target whole (RFC 2782) and compresses MX, NS and CNAME targets", () => {
    const message = encode({
      type: "response",
      id: 1,
      questions: [{ name: "example.test", type: "ANY" as never }],
      answers: [
        { name: "_sip._tcp.example.test", type: "SRV", ttl: 60, data: { priority: 1, weight: 1, port: 5060, target: "sip.example.test" } },
        { name: "example.test", type: "MX", ttl: 60, data: { preference: 10, exchange: "mx.example.test" } },
        { name: "example.test", type: "NS", ttl: 60, data: "ns1.example.test" },
        { name: "www.example.test", type: "CNAME", ttl: 60, data: "web.example.test" },
      ],
    });
    const compressed = compressNames(message);
    expect(lowered(compressed)).toEqual(lowered(message));
    const srv = compressed.indexOf(Buffer.from("\x03sip\x07example\x04test\x00", "latin1"));
    expect(srv).toBeGreaterThan(0);
    // Question 12 + 18 bytes; each later owner or target is a few labels plus a 2-byte pointer.
    expect(compressed.length).toBeLessThan(message.length - 40);
  });

  it("points only below offset 0x4000 in a message longer than that", () => {
    const answers = Array.from({ length: 700 }, (_, i) => ({ name: `host${i}.zone${i % 50}.example.test`, type: "A" as const, ttl: 60, data: "192.0.2.1" }));
    const message = encode({ type: "response", id: 1, questions: [{ name: "example.test", type: "A" }], answers });
    expect(message.length).toBeGreaterThan(0x4000);
    const compressed = compressNames(message);
    expect(lowered(compressed)).toEqual(lowered(message));
    const owners = ownerPointers(compressed);
    expect(owners.length).toBe(700);
    for (const { at, to } of owners) expect(to).toBeLessThan(Math.min(at, 0x4000));
  });

  it("refuses a message that already holds pointers rather than guess", () => {
    const message = Buffer.from(encode({ type: "response", id: 1, questions: [{ name: "a.test", type: "A" }] }));
    message[12] = 0xc0;
    expect(() => compressNames(message)).toThrow(/not an uncompressed name/);
  });
});
