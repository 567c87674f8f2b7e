// The signature headers of everything the service POSTs to a project (webhook deliveries,
// messenger forwards), both families side by side (decision W7):
// - the seed's `X-Platform-Signature: sha256=<hex HMAC-SHA256 of the body>`, keyed with the whole
//   `whsec_` secret as text (seed §6, unchanged);
// - Standard Webhooks (standardwebhooks.com): `webhook-id` (stable across retries),
//   `webhook-timestamp` (the attempt's Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256
//   of "id.timestamp.body">`, keyed with the base64 decoding of the text after `whsec_`, as every
//   Standard Webhooks library reads such a secret. Node's base64 decoder also reads the base64url
//   alphabet, so a secret issued before W7 (base64url) keeps one well-defined key.
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";

export interface SigningKeyPair {
  /** The whole `whsec_` string as UTF-8: X-Platform-Signature. */
  platform: KeyObject;
  /** The decoded text after `whsec_`: webhook-signature. */
  standard: KeyObject;
}

/** The Standard Webhooks key bytes of a `whsec_` secret. */
export function standardKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
}

export function signingKeys(secret: string): SigningKeyPair {
  const standard = standardKeyBytes(secret);
  // createSecretKey refuses an empty key; a (legacy) secret with no decodable body signs with its
  // text instead rather than failing every attempt.
  return {
    platform: createSecretKey(Buffer.from(secret, "utf8")),
    standard: createSecretKey(standard.length > 0 ? standard : Buffer.from(secret, "utf8")),
  };
}

/** `secret` is the whole whsec_ string, or the same bytes as a key. */
export function platformSignature(body: string, key: string | KeyObject): string {
  return `sha256=${createHmac("sha256", key).update(body).digest("hex")}`;
}

/** The `webhook-signature` value: `v1,<base64>` over `id.timestamp.body`. */
export function standardSignature(id: string, timestampSeconds: number, body: string, key: KeyObject): string {
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** Both header families for one attempt at `atMs` (epoch ms; the header carries whole seconds). */
export function signatureHeaders(id: string, body: string, keys: SigningKeyPair, atMs: number): Record<string, string> {
  const timestamp = Math.floor(atMs / 1000);
  return {
    "x-platform-signature": platformSignature(body, keys.platform),
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standardSignature(id, timestamp, body, keys.standard),
  };
}
