import { describe, expect, it } from "vitest";
import { zoneFile } from "./zone-file.ts";
import type { DnsRecord, DnsZone } from "./zone-repository.ts";

const zone: DnsZone = { name: "example.test", projectId: null, registrarRequiresData: false, serial: 7, createdAt: "" };
let n = 0;
const record = (name: string, type: DnsRecord["type"], data: string, extra: Partial<DnsRecord> = {}): DnsRecord => ({
  id: `r${n++}`,
  zone: zone.name,
  name,
  type,
  data,
  priority: null,
  ttl: 3600,
  createdAt: "",
  ...extra,
});

describe("zoneFile", () => {
  it("writes the synthesized SOA, the default NS and every record with absolute names", () => {
    const text = zoneFile(zone, [
      record("@", "A", "192.0.2.1"),
      record("@", "MX", "mx.example.test", { priority: 10 }),
      record("www", "CNAME", "web.example.test", { ttl: 300 }),
      record("web", "AAAA", "2001:db8::2"),
      record("_sip._tcp", "SRV", "10 5 5060 sip.example.test"),
      record("_sip._udp", "SRV", "0 0 0 ."),
      record("@", "CAA", '0 issue "ca.test"'),
    ]);
    expect(text.split("\n")).toEqual([
      "$ORIGIN example.test.",
      "example.test. 3600 IN SOA ns1.example.test. hostmaster.example.test. 7 3600 600 604800 300",
      "example.test. 3600 IN NS ns1.example.test.",
      "example.test. 3600 IN NS ns2.example.test.",
      "example.test. 3600 IN A 192.0.2.1",
      "example.test. 3600 IN MX 10 mx.example.test.",
      "www.example.test. 300 IN CNAME web.example.test.",
      "web.example.test. 3600 IN AAAA 2001:db8::2",
      "_sip._tcp.example.test. 3600 IN SRV 10 5 5060 sip.example.test.",
      "_sip._udp.example.test. 3600 IN SRV 0 0 0 .",
      'example.test. 3600 IN CAA 0 issue "ca.test"',
      "",
    ]);
  });

  it("uses the stored apex NS instead of the defaults, and the given identity in the SOA", () => {
    const text = zoneFile(zone, [record("@", "NS", "a.ns.test")], { nameservers: ["a.ns.test"], hostmaster: "dns.ops.test" });
    expect(text).toContain("example.test. 3600 IN SOA a.ns.test. dns.ops.test. 7 ");
    expect(text.match(/ IN NS /g)).toHaveLength(1);
    expect(text).toContain("example.test. 3600 IN NS a.ns.test.");
  });

  it("quotes TXT as 255-byte character-strings with quotes, backslashes and non-ASCII bytes escaped", () => {
    const long = "x".repeat(300);
    const text = zoneFile(zone, [record("t", "TXT", 'say "hi" \\ é'), record("l", "TXT", long)]);
    expect(text).toContain('t.example.test. 3600 IN TXT "say \\"hi\\" \\\\ \\195\\169"');
    expect(text).toContain(`l.example.test. 3600 IN TXT "${"x".repeat(255)}" "${"x".repeat(45)}"`);
  });
});
