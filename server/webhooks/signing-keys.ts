// The HMAC keys of webhook subscriptions, opened from their sealed secrets once rather than on
// every delivery: opening (AES-GCM with the server key) and importing the key were a tenth of a
// delivery's CPU. Keyed by the sealed value itself, which changes whenever a secret does (every
// seal has a fresh IV), so a cached key can never outlive the secret it came from; bounded, the
// oldest entry going first. The keys live only in this process's memory, as the server key does.
import { createSecretKey, type KeyObject } from "node:crypto";
import { BoundedMemo } from "../bounded-memo.ts";

export const SIGNING_KEYS_KEPT = 1024;

export class SigningKeys extends BoundedMemo<KeyObject> {
  constructor(open: (sealed: string) => string, max = SIGNING_KEYS_KEPT) {
    super(max, (sealed) => createSecretKey(Buffer.from(open(sealed), "utf8")));
  }
}
