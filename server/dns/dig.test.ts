// The server through BIND's dig, the tool operators will point at it. dig comes from
// Debian's dnsutils (installed by scripts/install-system-deps.sh); when it is missing these
// tests fail with that instruction instead of skipping, so CI cannot pass without them.
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type DnsServer } from "./authoritative-server.ts";
import { BIG_TXT_SET, createExampleZone } from "./example-zone.ts";

let server: DnsServer;
beforeAll(async () => {
  const { repository } = await createExampleZone();
  server = await startDnsServer({ host: "127.0.0.1", port: 0, repository });
});
afterAll(() => server.close());

function dig(...args: string[]): Promise<string> {
  const argv = ["@127.0.0.1", "-p", String(server.udpPort), "+time=3", "+tries=2", ...args];
  return new Promise((resolve, reject) => {
    execFile("dig", argv, (error, stdout) => {
      if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") {
        reject(new Error("dig is not installed: install Debian's dnsutils (apt-get install -y dnsutils, see scripts/install-system-deps.sh)"));
      } else if (error) reject(new Error(`dig ${argv.join(" ")} failed: ${error.message}\n${stdout}`));
      else resolve(stdout);
    });
  });
}

const lines = (out: string) => out.trim().split("\n").filter(Boolean);
const flagsOf = (out: string) => /;; flags: ([a-z ]+);/.exec(out)?.[1].split(" ") ?? [];
const statusOf = (out: string) => /status: ([A-Z]+)/.exec(out)?.[1];

describe("dig against the authoritative server", () => {
  it.each([
    ["A", "web.example.test", ["192.0.2.2"]],
    ["AAAA", "web.example.test", ["2001:db8::2"]],
    ["MX", "example.test", ["10 mx.example.test."]],
    ["TXT", "example.test", ['"v=spf1 -all"']],
    ["CNAME", "www.example.test", ["web.example.test."]],
    ["SRV", "_sip._tcp.example.test", ["10 5 5060 sip.example.test."]],
    ["CAA", "example.test", ['0 issue "ca.test"']],
    ["NS", "example.test", ["ns1.example.test.", "ns2.example.test."]],
  ])("answers %s with +short", async (type, name, want) => {
    expect(lines(await dig(name, type, "+short")).sort()).toEqual(want);
  });

  it("answers over TCP with +tcp", async () => {
    expect(lines(await dig("www.example.test", "A", "+tcp", "+short"))).toEqual(["web.example.test.", "192.0.2.2"]);
  });

  it("sets AA and leaves RD clear with +norecurse", async () => {
    const out = await dig("web.example.test", "A", "+norecurse");
    expect(statusOf(out)).toBe("NOERROR");
    expect(flagsOf(out)).toContain("aa");
    expect(flagsOf(out)).not.toContain("rd");
  });

  it("shows a long TXT record as 255-byte strings", async () => {
    const strings = (await dig("s1._domainkey.example.test", "TXT", "+short")).trim().match(/"[^"]*"/g) ?? [];
    expect(strings.map((s) => s.length - 2)).toEqual([255, 255, 90]);
  });

  it("reports NXDOMAIN with the SOA in the authority section", async () => {
    const out = await dig("nope.example.test", "A", "+norecurse");
    expect(statusOf(out)).toBe("NXDOMAIN");
    expect(flagsOf(out)).toContain("aa");
    expect(out).toMatch(/;; AUTHORITY SECTION:\nexample\.test\.\s+300\s+IN\s+SOA\s+ns1\.example\.test\. hostmaster\.example\.test\./);
  });

  it("reports NODATA as NOERROR with no answer", async () => {
    const out = await dig("web.example.test", "MX", "+norecurse");
    expect(statusOf(out)).toBe("NOERROR");
    expect(out).toMatch(/ANSWER: 0,/);
    expect(out).toMatch(/;; AUTHORITY SECTION:\nexample\.test\./);
  });

  it("reports REFUSED outside the hosted zones", async () => {
    expect(statusOf(await dig("example.org", "A"))).toBe("REFUSED");
  });

  it("truncates a large TXT set over UDP (TC) and dig retries over TCP", async () => {
    const truncated = await dig("big.example.test", "TXT", "+ignore", "+noedns");
    expect(flagsOf(truncated)).toContain("tc");
    expect(truncated).toMatch(/ANSWER: 0,/);

    const retried = await dig("big.example.test", "TXT");
    expect(retried).toMatch(/Truncated, retrying in TCP mode/);
    expect(retried).toMatch(/ANSWER: 12,/);

    const overTcp = lines(await dig("big.example.test", "TXT", "+tcp", "+short"));
    expect(overTcp.map((s) => s.replace(/"/g, "")).sort()).toEqual([...BIG_TXT_SET].sort());
  });
});
