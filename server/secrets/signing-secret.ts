// New `whsec_` signing secrets (webhook subscriptions, messenger forwards; decision W7). The text
// after the prefix is 44 characters of [A-Za-z0-9]: the same string in base64 and base64url,
// a multiple of 4 long (no padding), so every Standard Webhooks library decodes it to the same
// 33-byte key (261 bits of entropy) while the seed's X-Platform-Signature keeps using the whole
// string as text. Characters are drawn uniformly (randomInt rejects biased draws).
import { randomInt } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const SIGNING_SECRET_LENGTH = 44;

export function newSigningSecret(): string {
  let body = "";
  for (let i = 0; i < SIGNING_SECRET_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `whsec_${body}`;
}
