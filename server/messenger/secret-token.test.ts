// The secret_token check of messenger hooks: only the exact registered secret passes; a missing,
// repeated (array), empty, shorter, longer or case-changed header does not.
import { describe, expect, it } from "vitest";
import { secretMatches } from "./secret-token.ts";

const secret = "Zt3_q-9XbLw0aP4vN2mK7sR1uY8eC5dF6gH0jI2oQ3t";

describe("secretMatches", () => {
  it("accepts exactly the registered secret", () => {
    expect(secretMatches(secret, secret)).toBe(true);
  });

  it("refuses anything else", () => {
    expect(secretMatches(undefined, secret)).toBe(false);
    expect(secretMatches([secret], secret)).toBe(false);
    expect(secretMatches([secret, secret], secret)).toBe(false);
    expect(secretMatches("", secret)).toBe(false);
    expect(secretMatches(secret.slice(0, -1), secret)).toBe(false);
    expect(secretMatches(`${secret}x`, secret)).toBe(false);
    expect(secretMatches(secret.toLowerCase(), secret)).toBe(false);
    expect(secretMatches(` ${secret}`, secret)).toBe(false);
  });
});
