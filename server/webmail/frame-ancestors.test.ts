// The contract and the server agree on which frameAncestors are origins (decision M11): the
// pattern of the contract's FrameAncestor is the server's own, and a table of hostile values gets
// the same answer from both (the request validator with the contract's pattern, and the
// handler's check), so a value the contract allows is never refused and none it refuses is kept.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FRAME_ANCESTOR_PATTERN, frameAncestorsDirective, MAX_FRAME_ANCESTORS, readFrameAncestors } from "./frame-ancestors.ts";

const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi/openapi.json", import.meta.url), "utf8")) as {
  components: { schemas: Record<string, { pattern?: string }> };
};
const contractPattern = openapi.components.schemas.FrameAncestor!.pattern!;
// As the request validator reads a JSON Schema pattern (ajv: unicode flag).
const contract = new RegExp(contractPattern, "u");

const accepted: [string, string, string][] = [
  ["a DNS name", "https://app.example.com", "https://app.example.com"],
  ["a trailing slash, dropped", "https://app.example.com/", "https://app.example.com"],
  ["a port", "https://app.example.com:8443", "https://app.example.com:8443"],
  ["the highest port", "https://app.example.com:65535", "https://app.example.com:65535"],
  ["https's default port, dropped as location.origin does", "https://app.example.com:443", "https://app.example.com"],
  ["http's default port on loopback, dropped", "http://localhost:80/", "http://localhost"],
  ["a port that only begins like the default one", "https://app.example.com:4430", "https://app.example.com:4430"],
  ["http's default port number on https, kept", "https://app.example.com:80", "https://app.example.com:80"],
  ["a single-label host", "https://intranet", "https://intranet"],
  ["a punycode (IDN) name", "https://xn--bcher-kva.example", "https://xn--bcher-kva.example"],
  ["a hyphenated label", "https://my-app.example-shop.com", "https://my-app.example-shop.com"],
  ["a public IPv4 address over https", "https://203.0.113.9", "https://203.0.113.9"],
  ["IPv4 edge octets", "https://255.0.10.199:1", "https://255.0.10.199:1"],
  ["http on localhost with a port", "http://localhost:5173", "http://localhost:5173"],
  ["http on 127.x.x.x", "http://127.0.0.1:3000", "http://127.0.0.1:3000"],
  ["http on [::1]", "http://[::1]:8080", "http://[::1]:8080"],
  ["https on [::1]", "https://[::1]", "https://[::1]"],
];

const refused: [string, string][] = [
  ["uppercase host", "https://App.Example.com"],
  ["uppercase scheme", "HTTPS://app.example.com"],
  ["an IDN in Unicode", "https://bücher.example"],
  ["a wildcard host", "https://*.example.com"],
  ["a bare wildcard", "*"],
  ["a CSP keyword", "'self'"],
  ["a quoted origin", "'https://app.example.com'"],
  ["a double-quoted origin", '"https://app.example.com"'],
  ["a leading space", " https://app.example.com"],
  ["a trailing space", "https://app.example.com "],
  ["a space inside", "https://app example.com"],
  ["a tab inside (the URL parser would drop it)", "https://app.\texample.com"],
  ["two origins in one", "https://a.example https://b.example"],
  ["a path", "https://app.example.com/mail"],
  ["two slashes", "https://app.example.com//"],
  ["an empty query", "https://app.example.com?"],
  ["a query", "https://app.example.com/?x=1"],
  ["a fragment", "https://app.example.com#top"],
  ["a user", "https://u@app.example.com"],
  ["a user and password", "https://u:p@app.example.com"],
  ["port 0", "https://app.example.com:0"],
  ["a port above 65535", "https://app.example.com:65536"],
  ["a port with a leading zero", "https://app.example.com:08443"],
  ["an empty port", "https://app.example.com:"],
  ["http on a public host", "http://app.example.com"],
  ["http on a public IPv4 address", "http://203.0.113.9"],
  ["http on a private IPv4 address", "http://10.0.0.1"],
  ["a shortened IPv4 (the URL parser would read 127.0.0.1)", "http://127.1"],
  ["a hex IPv4", "https://0x7f.0.0.1"],
  ["an IPv4 octet with a leading zero", "https://203.0.113.09"],
  ["an IPv4 octet above 255", "https://203.0.113.256"],
  ["a host ending in a number (read as IPv4)", "https://app.example.1"],
  ["a public IPv6 literal", "https://[2001:db8::1]"],
  ["a non-canonical IPv6 loopback", "http://[0:0:0:0:0:0:0:1]"],
  ["an IPv4-mapped IPv6 literal", "https://[::ffff:127.0.0.1]"],
  ["a trailing dot", "https://app.example.com."],
  ["an empty label", "https://app..example.com"],
  ["a label starting with a hyphen", "https://-app.example.com"],
  ["a label ending with a hyphen", "https://app-.example.com"],
  ["a label of 64 characters", `https://${"a".repeat(64)}.example`],
  ["an underscore", "https://app_1.example.com"],
  ["a percent-encoded dot", "https://app%2eexample.com"],
  ["a backslash", "https:\\\\app.example.com"],
  ["no slashes", "https:app.example.com"],
  ["another scheme", "ftp://app.example.com"],
  ["a javascript: URL", "javascript:alert(1)"],
  ["a data: URL", "data:text/html,x"],
  ["a newline", "https://app.example.com\n"],
  ["a semicolon (a CSP directive separator)", "https://app.example.com;script-src *"],
  ["an empty string", ""],
];

describe("the contract's FrameAncestor pattern", () => {
  it("is the server's own check", () => {
    expect(contractPattern).toBe(FRAME_ANCESTOR_PATTERN);
  });
});

describe("readFrameAncestors agrees with the contract", () => {
  it.each(accepted)("accepts %s (%j) as %j", (_, value, origin) => {
    expect(contract.test(value)).toBe(true);
    expect(readFrameAncestors([value], "body.frameAncestors")).toEqual({ origins: [origin], problems: [] });
  });

  it.each(refused)("refuses %s (%j)", (_, value) => {
    expect(contract.test(value)).toBe(false);
    const { origins, problems } = readFrameAncestors(["https://ok.example", value], "body.frameAncestors");
    expect(origins).toEqual(["https://ok.example"]);
    expect(problems).toEqual([{ path: "body.frameAncestors.1", message: expect.any(String) }]);
  });
});

describe("readFrameAncestors", () => {
  it.each([
    ["not a URL", "app.example.com", /^is not an origin/],
    ["http on a public host", "http://app.example.com", /^must be an https origin/],
    ["a path", "https://app.example.com/mail", /^must be an origin alone, such as https:\/\/app\.example\.com /],
    ["a user", "https://u@app.example.com", /^must be an origin alone/],
    ["a path on loopback http", "http://localhost:3000/app", /^must be an origin alone, such as http:\/\/localhost:3000 /],
    ["uppercase on loopback http", "http://LOCALHOST:3000", /^must be lowercase, as the browser's location\.origin gives it: http:\/\/localhost:3000$/],
    ["another scheme on a loopback host", "ftp://localhost", /^must be an https origin/],
    ["uppercase", "https://App.Example.com", /^must be lowercase, as the browser's location\.origin gives it: https:\/\/app\.example\.com$/],
    ["a wildcard", "https://*.example.com", /^is not an origin/],
  ])("says why %s is refused", (_, value, message) => {
    expect(readFrameAncestors([value], "p").problems).toEqual([{ path: "p.0", message: expect.stringMatching(message) }]);
  });

  it("drops duplicates (as the browser would name them) and refuses more than the maximum", () => {
    expect(readFrameAncestors(["https://a.example", "https://a.example/", "https://a.example:443"], "p")).toEqual({ origins: ["https://a.example"], problems: [] });
    const many = Array.from({ length: MAX_FRAME_ANCESTORS + 1 }, (_, i) => `https://a${i}.example`);
    expect(readFrameAncestors(many, "p").problems).toEqual([{ path: "p", message: `at most ${MAX_FRAME_ANCESTORS} origins` }]);
    expect(readFrameAncestors(many.slice(1), "p").problems).toEqual([]);
    expect(readFrameAncestors(undefined, "p")).toEqual({ origins: [], problems: [] });
  });

  it("frames by exactly the origins named, or by no one", () => {
    expect(frameAncestorsDirective(["https://a.example", "http://localhost:3000"])).toEqual({ directive: "frame-ancestors https://a.example http://localhost:3000", deny: false });
    expect(frameAncestorsDirective([])).toEqual({ directive: "frame-ancestors 'none'", deny: true });
  });
});
