// The sealed format is stored in databases: the box, which imports its key once, must open what
// the plain AES-256-GCM of the format seals and refuse what another key or a changed byte made.
import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "./secret-box.ts";

/** `v1.<iv>.<tag>.<ciphertext>` made by hand with the raw key, as the format defines it. */
function sealByHand(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), data.toString("base64url")].join(".");
}

describe("SecretBox", () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);

  it("opens what the format seals with its key, many times over, and seals what opens", () => {
    const sealed = sealByHand(key, "whsec_first");
    for (let i = 0; i < 3; i++) expect(box.open(sealed)).toBe("whsec_first");
    expect(box.open(sealByHand(key, "whsec_second"))).toBe("whsec_second");
    expect(box.open(box.seal("ünïcode secret"))).toBe("ünïcode secret");
    expect(box.seal("same")).not.toBe(box.seal("same")); // a fresh IV each time
  });

  it("refuses another key's secret and a changed ciphertext", () => {
    expect(() => new SecretBox(randomBytes(32)).open(box.seal("whsec_x"))).toThrow();
    const [v, iv, tag, data] = box.seal("whsec_x").split(".");
    const flipped = Buffer.from(data, "base64url");
    flipped[0] ^= 1;
    expect(() => box.open([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow();
    expect(() => box.open(`v2.${iv}.${tag}.${data}`)).toThrow(/unknown secret format/);
  });

  it("derives keys from the raw key, one per use", () => {
    expect(box.deriveKey("a")).toEqual(new SecretBox(Buffer.from(key)).deriveKey("a"));
    expect(box.deriveKey("a")).not.toEqual(box.deriveKey("b"));
  });
});
