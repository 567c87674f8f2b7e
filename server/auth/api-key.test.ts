// parseBearer's shortcut for the usual header ("Bearer " + a well-formed key) answers exactly as
// the general patterns do, for any header.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateApiKey, parseBearer } from "./api-key.ts";

/** The rules without the shortcut: the scheme, one token, then the key's form. */
function reference(header: string | undefined) {
  if (!header) return { problem: "missing Authorization header; send Authorization: Bearer platform_sk_..." };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { problem: "Authorization must be Bearer platform_sk_..." };
  if (!/^platform_sk_[A-Za-z0-9_-]{20,128}$/.test(match[1])) return { problem: "malformed API key; keys look like platform_sk_..." };
  return { key: match[1] };
}

const keyChars = fc.constantFrom(..."ABCxyz019_-", " ", "\t", "\n", "!", "é", "\u00a0");
const scheme = fc.constantFrom("Bearer ", "bearer ", "BEARER ", "Bearer  ", "Bearer\t", "Bearer", "Bearerx ", " Bearer ", "Basic ", "");
const key = fc.oneof(
  fc.constant(generateApiKey().key),
  fc.string({ unit: keyChars, maxLength: 140 }).map((s) => `platform_sk_${s}`),
  fc.string({ unit: keyChars, maxLength: 40 }),
);
const tail = fc.constantFrom("", " ", "\t", "  ", " x", "\n");

describe("parseBearer", () => {
  it("answers as the general rules for any header", () => {
    fc.assert(
      fc.property(scheme, key, tail, (s, k, t) => {
        const header = s + k + t;
        expect(parseBearer(header)).toEqual(reference(header));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ["the usual form", "Bearer platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ", { key: "platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ" }],
    ["a trailing space", "Bearer platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ ", { key: "platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ" }],
    ["two spaces", "Bearer  platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ", { key: "platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ" }],
    ["a lowercase scheme", "bearer platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ", { key: "platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ" }],
    ["a second token", "Bearer platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ x", { problem: "Authorization must be Bearer platform_sk_..." }],
    ["a key too short", "Bearer platform_sk_ABC", { problem: "malformed API key; keys look like platform_sk_..." }],
    ["a key too long", `Bearer platform_sk_${"A".repeat(129)}`, { problem: "malformed API key; keys look like platform_sk_..." }],
    ["a character outside the key's alphabet", "Bearer platform_sk_ABCDEFGHIJKLMNOPQRSTUVWXY!", { problem: "malformed API key; keys look like platform_sk_..." }],
  ])("%s", (_name, header, expected) => {
    expect(parseBearer(header)).toEqual(expected);
  });
});
