// Every range the policy must refuse, and the IPv6 forms that smuggle an IPv4 address, judged
// one address at a time. The URL spellings are in server/webhooks/webhook-url.test.ts.
import { describe, expect, it } from "vitest";
import { checkAddress, isIpLiteral, isPublicAddress } from "./address-policy.ts";

const refused: [string, string][] = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this network"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private 10/8"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12"],
  ["192.168.1.1", "private 192.168/16"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.255", "CGNAT"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["192.0.2.1", "documentation TEST-NET-1"],
  ["198.51.100.7", "documentation TEST-NET-2"],
  ["203.0.113.9", "documentation TEST-NET-3"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved class E"],
  ["255.255.255.255", "broadcast"],
  ["::", "IPv6 unspecified"],
  ["::1", "IPv6 loopback"],
  ["fe80::1", "IPv6 link-local"],
  ["fe80::1%eth0", "IPv6 link-local with zone"],
  ["fc00::1", "unique local"],
  ["fd12:3456:789a::1", "unique local"],
  ["fec0::1", "deprecated site-local"],
  ["ff02::1", "IPv6 multicast"],
  ["2001:db8::1", "IPv6 documentation"],
  ["3fff::1", "IPv6 documentation (RFC 9637)"],
  ["2001:2::1", "IPv6 benchmarking"],
  ["100::1", "discard-only"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped 169.254.169.254"],
  ["::ffff:10.0.0.1", "IPv4-mapped private"],
  ["0:0:0:0:0:ffff:c0a8:101", "IPv4-mapped 192.168.1.1, long form"],
  ["::ffff:0:7f00:1", "IPv4-translated loopback"],
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["::8.8.8.8", "IPv4-compatible (deprecated, never routable)"],
  ["64:ff9b::7f00:1", "NAT64 of loopback"],
  ["64:ff9b::169.254.169.254", "NAT64 of link-local"],
  ["64:ff9b::a00:1", "NAT64 of private"],
  ["64:ff9b:1::808:808", "local-use NAT64"],
  ["2002:7f00:1::1", "6to4 of loopback"],
  ["2002:c0a8:101::1", "6to4 of private"],
  ["2002:a9fe:a9fe::", "6to4 of link-local"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo, client 127.0.0.1"],
  ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "Teredo, server 10.0.0.1"],
  ["not-an-ip", "a host name"],
  ["", "empty"],
];

const allowed: [string, string][] = [
  ["8.8.8.8", "public IPv4"],
  ["1.1.1.1", "public IPv4"],
  ["93.184.215.14", "public IPv4"],
  ["172.32.0.1", "just outside 172.16/12"],
  ["100.128.0.1", "just outside CGNAT"],
  ["2606:4700:4700::1111", "public IPv6"],
  ["2a00:1450:4001::200e", "public IPv6"],
  ["::ffff:8.8.8.8", "IPv4-mapped public"],
  ["64:ff9b::808:808", "NAT64 of a public address"],
  ["2002:808:808::1", "6to4 of a public address"],
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "Teredo, public server and client"],
  // IANA marks these special-purpose ranges globally reachable: public anycast, not a private net
  ["192.175.48.1", "AS112 (RFC 7534)"],
  ["192.52.193.1", "AMT (RFC 7450)"],
  ["2001:4:112::1", "AS112 IPv6"],
  ["2001:3::1", "AMT IPv6"],
  ["[2606:4700:4700::1111]", "public IPv6 in URL brackets"],
];

describe("address policy", () => {
  it.each(refused)("refuses %s (%s)", (address) => {
    expect(checkAddress(address).allowed).toBe(false);
    expect(checkAddress(address, { allowLoopback: false })).toMatchObject({ allowed: false, reason: expect.any(String) });
  });

  it.each(allowed)("allows %s (%s)", (address) => {
    expect(checkAddress(address)).toEqual({ allowed: true });
  });

  it("with the development flag allows loopback in every form, and nothing else that is private", () => {
    for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1"]) expect(checkAddress(a, { allowLoopback: true }).allowed, a).toBe(true);
    for (const a of ["10.0.0.1", "169.254.169.254", "::ffff:a9fe:a9fe", "fd00::1", "0.0.0.0"]) expect(checkAddress(a, { allowLoopback: true }).allowed, a).toBe(false);
  });
});

// The reason goes into the delivery log and the API's refusal: it names the range that was hit,
// for the IPv4 address an IPv6 form carries too.
describe("address policy: the reason", () => {
  it.each([
    ["not-an-ip", "not-an-ip is not an IP address"],
    ["[::1", "[::1 is not an IP address"],
    ["x8.8.8.8]", "x8.8.8.8] is not an IP address"],
    ["10.0.0.1", "10.0.0.1 is a private address"],
    ["0.0.0.0", "0.0.0.0 is a unspecified address"],
    ["[::1]", "[::1] is a loopback address"],
    ["::ffff:0:7f00:1", "::ffff:0:7f00:1 is a loopback address"],
    ["::ffff:a9fe:a9fe", "::ffff:a9fe:a9fe is a linkLocal address"],
    ["64:ff9b::a00:1", "64:ff9b::a00:1 is a private address"],
    ["2002:c0a8:101::1", "2002:c0a8:101::1 is a private address"],
    ["64:ff9b:1::808:808", "64:ff9b:1::808:808 is a local-use NAT64 address"],
    ["::8.8.8.8", "::8.8.8.8 is a IPv4-compatible address"],
    ["fe80::1%eth0", "fe80::1%eth0 is a scoped (zone index) address"],
    ["2606:4700:4700::1111%eth0", "2606:4700:4700::1111%eth0 is a scoped (zone index) address"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:0:4136:e378:8000:63bf:80ff:fffe is a loopback address"],
    ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "2001:0:a00:1:8000:63bf:f7f7:f7f7 is a private address"],
    ["fd00::1", "fd00::1 is a uniqueLocal address"],
  ])("%s: %s", (address, reason) => {
    expect(checkAddress(address)).toEqual({ allowed: false, reason });
  });

  it("the development flag lets IPv4-translated loopback through as loopback", () => {
    expect(checkAddress("::ffff:0:7f00:1", { allowLoopback: true })).toEqual({ allowed: true });
  });
});

describe("address literals", () => {
  it("isIpLiteral: any address spelling, bracketed or not; never a host name", () => {
    for (const a of ["127.0.0.1", "8.8.8.8", "::1", "[::1]", "[2606:4700:4700::1111]", "0x7f.1"]) expect(isIpLiteral(a), a).toBe(true);
    for (const a of ["example.org", "localhost", "[example.org]", "", "[::1", "x::1]"]) expect(isIpLiteral(a), a).toBe(false);
  });

  it("isPublicAddress: the policy without the development flag", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("[2606:4700:4700::1111]")).toBe(true);
    expect(isPublicAddress("127.0.0.1")).toBe(false);
    expect(isPublicAddress("10.0.0.1")).toBe(false);
  });
});
