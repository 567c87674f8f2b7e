// Vectors computed independently with `openssl dgst -sha256 -hmac <secret>`.
import { describe, expect, it } from "vitest";
import { signWebhookBody, verifyWebhookSignature } from "../../generated/client/index.ts";

const body = '{"id":"evt_1","type":"mail.delivered"}';
const secret = "whsec_MfKQ9r6kQbSzYv3D";
const withPrefix = "sha256=29befe91dd4f66ace42763ff24c90c960ac8c3acf80e2cf514d457594963dc97";
// What a receiver would compute if it cut the prefix off the secret: it must not verify.
const prefixCut = "sha256=0e276d400d67b8846cf981b16c5331cd167ba8ba5b7d9ad44bcce21d78fee266";

describe("verifyWebhookSignature", () => {
  it.each([
    ["the right secret", body, withPrefix, secret, true],
    ["the body as bytes", new TextEncoder().encode(body), withPrefix, secret, true],
    ["a wrong secret", body, withPrefix, "whsec_other", false],
    ["the secret with its prefix cut", body, withPrefix, "MfKQ9r6kQbSzYv3D", false],
    ["a signature made with the prefix cut", body, prefixCut, secret, false],
    ["a body changed by one byte", body.replace("1", "2"), withPrefix, secret, false],
    ["a re-serialized body", JSON.stringify(JSON.parse(body), null, 1), withPrefix, secret, false],
    ["upper-case hex", body, withPrefix.toUpperCase().replace("SHA256", "sha256"), secret, false],
    ["no sha256= prefix", body, withPrefix.slice(7), secret, false],
    ["a truncated signature", body, withPrefix.slice(0, -2), secret, false],
    ["a missing header", body, undefined, secret, false],
    ["an empty secret", body, withPrefix, "", false],
  ] as const)("%s", (_, raw, header, key, expected) => {
    expect(verifyWebhookSignature(raw, header, key)).toBe(expected);
  });

  it("agrees with signWebhookBody", () => {
    expect(signWebhookBody(body, secret)).toBe(withPrefix);
  });
});
