// Issue 17 item 2: every spelling of a non-public target is refused as a webhook URL; the URL
// parser's normalisation (decimal, hex, octal, short IPv4, IPv6 compression) must not open a way
// past the policy. Table-driven: [url, refused without the flag, refused with the development flag].
import { describe, expect, it } from "vitest";
import { webhookUrlProblem } from "./webhook-url.ts";

const table: [url: string, refused: boolean, refusedInDevelopment: boolean][] = [
  // loopback, every IPv4 spelling
  ["https://127.0.0.1/h", true, false],
  ["https://2130706433/h", true, false], // decimal
  ["https://0x7f000001/h", true, false], // hex
  ["https://0x7f.0x0.0x0.0x1/h", true, false], // hex per part
  ["https://0x7f.1/h", true, false],
  ["https://0177.0.0.1/h", true, false], // octal
  ["https://017700000001/h", true, false], // octal whole
  ["https://127.1/h", true, false], // short
  ["https://127.0.1/h", true, false],
  ["https://127.000.000.001/h", true, false], // zero-padded octal parts
  ["https://127.0.0.1./h", true, false], // trailing dot
  ["https://localhost/h", true, false],
  ["https://LOCALHOST./h", true, false],
  ["https://api.localhost/h", true, false],
  // IPv6 loopback and IPv4-carrying forms, bracketed
  ["https://[::1]/h", true, false],
  ["https://[0:0:0:0:0:0:0:1]/h", true, false],
  ["https://[::ffff:127.0.0.1]/h", true, false],
  ["https://[::ffff:7f00:1]/h", true, false],
  ["https://[0:0:0:0:0:ffff:127.0.0.1]/h", true, false],
  ["https://[::127.0.0.1]/h", true, true], // IPv4-compatible: never routable, refused even in development
  ["https://[64:ff9b::127.0.0.1]/h", true, false], // NAT64
  ["https://[2002:7f00:1::]/h", true, false], // 6to4
  // metadata service and private networks, in several spellings
  ["https://169.254.169.254/latest", true, true],
  ["https://2852039166/latest", true, true], // decimal 169.254.169.254
  ["https://0xa9fea9fe/latest", true, true],
  ["https://0251.0376.0251.0376/latest", true, true], // octal
  ["https://[::ffff:a9fe:a9fe]/latest", true, true],
  ["https://[::ffff:169.254.169.254]/latest", true, true],
  ["https://[64:ff9b::a9fe:a9fe]/latest", true, true],
  ["https://[2002:a9fe:a9fe::1]/latest", true, true],
  ["https://10.0.0.1/h", true, true],
  ["https://10.1/h", true, true], // short form of 10.0.0.1
  ["https://167772161/h", true, true], // decimal 10.0.0.1
  ["https://0xc0a80101/h", true, true], // 192.168.1.1
  ["https://172.16.0.1/h", true, true],
  ["https://100.64.0.1/h", true, true], // CGNAT
  ["https://0.0.0.0/h", true, true],
  ["https://0/h", true, true],
  ["https://198.18.0.1/h", true, true], // benchmarking
  ["https://192.0.2.1/h", true, true], // documentation
  ["https://224.0.0.1/h", true, true], // multicast
  ["https://255.255.255.255/h", true, true], // broadcast
  ["https://[fe80::1]/h", true, true],
  ["https://[fd00::1]/h", true, true],
  ["https://[ff02::1]/h", true, true],
  ["https://[2001:db8::1]/h", true, true],
  ["https://[::]/h", true, true],
  // public targets pass
  ["https://hooks.example.org/p", false, false],
  ["https://8.8.8.8/h", false, false],
  ["https://134744072/h", false, false], // decimal 8.8.8.8
  ["https://[2606:4700:4700::1111]/h", false, false],
  ["https://[::ffff:8.8.8.8]/h", false, false],
  // scheme and credentials
  // plain http:// under the development flag: accepted here, and at every connect all of the
  // target's addresses must be loopback (decision OP4; adapters/outbound-http-guard.test.ts)
  ["http://hooks.example.org/", true, false],
  ["http://127.0.0.1:9/h", true, false],
  ["http://[::1]:9/h", true, false],
  ["http://localhost:9/h", true, false],
  ["http://8.8.8.8/h", true, false], // accepted, refused at every connect (outbound-http-guard.test.ts)
  ["http://134744072/h", true, false], // decimal 8.8.8.8, likewise
  ["http://[2606:4700:4700::1111]/h", true, false],
  ["http://10.0.0.1/h", true, true],
  ["ftp://hooks.example.org/", true, true],
  ["https://user:pw@hooks.example.org/", true, true],
  ["https://user@hooks.example.org/", true, true], // a user name alone is a credential too
  ["https://:pw@hooks.example.org/", true, true], // and so is a password alone
  ["not a url", true, true],
];

describe("webhook URL policy", () => {
  it.each(table)("%s: refused %s, with the development flag %s", (url, refused, refusedInDevelopment) => {
    expect(webhookUrlProblem(url, false) !== undefined).toBe(refused);
    expect(webhookUrlProblem(url, true) !== undefined).toBe(refusedInDevelopment);
  });
});

// The text is what the API answers in `details` (the caller's only hint), so each refusal says why.
describe("webhook URL policy: the reason given", () => {
  const publicOnly = "must point at a public internet address (not private, loopback, link-local or otherwise reserved)";
  it.each([
    ["not a url", false, "is not a valid URL"],
    ["https://user@hooks.example.org/", false, "must not carry credentials"],
    ["https://user:pw@hooks.example.org/", true, "must not carry credentials"],
    ["http://user@hooks.example.org/", false, "must not carry credentials"],
    ["http://hooks.example.org/", false, "must be an https URL"],
    ["ftp://hooks.example.org/", true, "must be an https URL"],
    ["https://localhost/h", false, "must not point at a loopback address"],
    ["https://api.localhost./h", false, "must not point at a loopback address"],
    ["https://127.0.0.1/h", false, publicOnly],
    ["https://[::1]/h", false, publicOnly],
    ["https://10.0.0.1/h", true, publicOnly],
    ["https://[fd00::1]/h", true, publicOnly],
  ] as const)("%s (development flag %s): %s", (url, development, reason) => {
    expect(webhookUrlProblem(url, development)).toBe(reason);
  });

  it("a host that merely ends in localhost is not loopback", () => {
    expect(webhookUrlProblem("https://mylocalhost/h", false)).toBeUndefined();
    expect(webhookUrlProblem("https://localhost.example.org/h", false)).toBeUndefined();
  });
});
