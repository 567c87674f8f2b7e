// The HMAC keys of webhook subscriptions, opened from their sealed secrets once rather than on
// every delivery: opening (AES-GCM with the server key) and importing the keys were a tenth of a
// delivery's CPU. Keyed by the sealed value itself, which changes whenever a secret does (every
// seal has a fresh IV), so a cached key can never outlive the secret it came from; bounded, the
// oldest entry going first. The keys live only in this process's memory, as the server key does.
// Each secret gives two keys (decision W7): its text for X-Platform-Signature, its base64-decoded
// body for the Standard Webhooks signature.
import { signingKeys, type SigningKeyPair } from "../adapters/webhook-signing.ts";
import { BoundedMemo } from "../bounded-memo.ts";

export const SIGNING_KEYS_KEPT = 1024;

export class SigningKeys extends BoundedMemo<SigningKeyPair> {
  constructor(open: (sealed: string) => string, max = SIGNING_KEYS_KEPT) {
    super(max, (sealed) => signingKeys(open(sealed)));
  }
}
