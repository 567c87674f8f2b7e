// The typed client's Standard Webhooks check against the reference implementation: signatures
// made by the spec authors' `standardwebhooks` library must verify, and the tolerance must refuse
// what is too old or too new, on an injected clock.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  checkStandardWebhook,
  signStandardWebhook,
  verifyStandardWebhook,
} from "../../generated/client/index.ts";

const key = randomBytes(33);
const secret = `whsec_${key.toString("base64")}`;
const body = '{"id":"evt_1","type":"mail.delivered","data":{"to":"bøb@example.org"}}';
const id = "evt_1";
const at = 1_800_000_000;
const now = () => at * 1000;
const reference = (s: string, ts = at, msg = id) =>
  new Webhook(s).sign(msg, new Date(ts * 1000), body);
const signed = (signature = reference(secret), ts = at) => ({
  "webhook-id": id,
  "webhook-timestamp": String(ts),
  "webhook-signature": signature,
});

describe("checkStandardWebhook", () => {
  it.each([
    [
      "the reference library's signature",
      body,
      signed(),
      secret,
      {},
      { ok: true, id, timestamp: at },
    ],
    [
      "the body as bytes",
      new TextEncoder().encode(body),
      signed(),
      secret,
      {},
      { ok: true, id, timestamp: at },
    ],
    [
      "header names in any case",
      body,
      { "Webhook-Id": id, "WEBHOOK-TIMESTAMP": String(at), "webhook-Signature": reference(secret) },
      secret,
      {},
      { ok: true, id, timestamp: at },
    ],
    [
      "a fetch Headers object",
      body,
      new Headers(signed()),
      secret,
      {},
      { ok: true, id, timestamp: at },
    ],
    [
      "several signatures, one of them right",
      body,
      signed(`v1,${randomBytes(32).toString("base64")} ${reference(secret)}`),
      secret,
      {},
      { ok: true, id, timestamp: at },
    ],
    [
      "exactly 5 minutes old",
      body,
      signed(reference(secret, at - 300), at - 300),
      secret,
      {},
      { ok: true, id, timestamp: at - 300 },
    ],
    [
      "5 minutes and 1 second old",
      body,
      signed(reference(secret, at - 301), at - 301),
      secret,
      {},
      { ok: false, reason: "too-old" },
    ],
    [
      "5 minutes and 1 second ahead",
      body,
      signed(reference(secret, at + 301), at + 301),
      secret,
      {},
      { ok: false, reason: "too-new" },
    ],
    [
      "an hour old with a tolerance of 2 hours",
      body,
      signed(reference(secret, at - 3600), at - 3600),
      secret,
      { toleranceSeconds: 7200 },
      { ok: true, id, timestamp: at - 3600 },
    ],
    [
      "1 minute old with a tolerance of 30 seconds",
      body,
      signed(reference(secret, at - 60), at - 60),
      secret,
      { toleranceSeconds: 30 },
      { ok: false, reason: "too-old" },
    ],
    [
      "a timestamp moved after signing",
      body,
      signed(reference(secret), at + 1),
      secret,
      {},
      { ok: false, reason: "bad-signature" },
    ],
    [
      "another id",
      body,
      { ...signed(), "webhook-id": "evt_2" },
      secret,
      {},
      { ok: false, reason: "bad-signature" },
    ],
    [
      "a changed body",
      body.replace("1", "2"),
      signed(),
      secret,
      {},
      { ok: false, reason: "bad-signature" },
    ],
    [
      "another secret",
      body,
      signed(),
      `whsec_${randomBytes(33).toString("base64")}`,
      {},
      { ok: false, reason: "bad-signature" },
    ],
    [
      "the seed's key (the secret as text)",
      body,
      signed(new Webhook(secret, { format: "raw" }).sign(id, new Date(at * 1000), body)),
      secret,
      {},
      { ok: false, reason: "bad-signature" },
    ],
    [
      "only a v2 signature",
      body,
      signed(reference(secret).replace("v1,", "v2,")),
      secret,
      {},
      { ok: false, reason: "bad-signature" },
    ],
    [
      "no webhook-signature",
      body,
      { "webhook-id": id, "webhook-timestamp": String(at) },
      secret,
      {},
      { ok: false, reason: "missing-headers" },
    ],
    [
      "no webhook-id",
      body,
      { "webhook-timestamp": String(at), "webhook-signature": reference(secret) },
      secret,
      {},
      { ok: false, reason: "missing-headers" },
    ],
    ["an empty secret", body, signed(), "", {}, { ok: false, reason: "missing-headers" }],
    [
      "a timestamp in milliseconds",
      body,
      signed(reference(secret), at * 1000),
      secret,
      {},
      { ok: false, reason: "too-new" },
    ],
    [
      "a timestamp that is no number",
      body,
      { ...signed(), "webhook-timestamp": "1.8e9" },
      secret,
      {},
      { ok: false, reason: "bad-timestamp" },
    ],
  ] as const)("%s", (_, raw, headers, key, options, expected) => {
    expect(checkStandardWebhook(raw, headers, key, { now, ...options })).toEqual(expected);
    expect(verifyStandardWebhook(raw, headers, key, { now, ...options })).toBe(expected.ok);
  });

  it("a secret issued before decision W7 (base64url, with - and _) verifies as the library reads its base64 twin", () => {
    let bytes = randomBytes(24);
    while (!/[-_]/.test(bytes.toString("base64url"))) bytes = randomBytes(24);
    const legacy = `whsec_${bytes.toString("base64url")}`;
    const twin = `whsec_${bytes.toString("base64")}`;
    expect(checkStandardWebhook(body, signed(reference(twin)), legacy, { now }).ok).toBe(true);
  });

  it("signStandardWebhook agrees with the reference library, and the default clock is the real one", () => {
    expect(signStandardWebhook(id, at, body, secret)).toBe(reference(secret));
    const ts = Math.floor(Date.now() / 1000);
    expect(verifyStandardWebhook(body, signed(reference(secret, ts), ts), secret)).toBe(true);
    expect(verifyStandardWebhook(body, signed(reference(secret, ts - 600), ts - 600), secret)).toBe(
      false,
    );
  });
});
