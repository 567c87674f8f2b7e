// Login-link and session tokens: prefixed, 256 random bits, stored only as their SHA-256.
import { describe, expect, it } from "vitest";
import { hashToken, newToken } from "./tokens.ts";

describe("webmail tokens", () => {
  it("a token is the prefix, an underscore and 32 random bytes in base64url", () => {
    const { token } = newToken("wl");
    expect(token).toMatch(/^wl_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(3), "base64url")).toHaveLength(32);
    expect(newToken("wl").token).not.toBe(token);
  });

  it("the hash is the token's SHA-256 in lowercase hex", () => {
    // FIPS 180-2's test vector for "abc".
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const { token, hash } = newToken("ws");
    expect(hash).toBe(hashToken(token));
    expect(hash).not.toBe(hashToken(newToken("ws").token));
  });
});
