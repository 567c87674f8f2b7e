// The HMAC keys of webhook subscriptions, opened from their sealed secrets once rather than on
// every delivery: opening (AES-GCM with the server key) and importing the key were a tenth of a
// delivery's CPU. Keyed by the sealed value itself, which changes whenever a secret does (every
// seal has a fresh IV), so a cached key can never outlive the secret it came from; bounded, the
// oldest entry going first. The keys live only in this process's memory, as the server key does.
import { createSecretKey, type KeyObject } from "node:crypto";

export const SIGNING_KEYS_KEPT = 1024;

export class SigningKeys {
  private readonly open: (sealed: string) => string;
  private readonly max: number;
  private readonly keys = new Map<string, KeyObject>();

  constructor(open: (sealed: string) => string, max = SIGNING_KEYS_KEPT) {
    this.open = open;
    this.max = max;
  }

  get(sealed: string): KeyObject {
    let key = this.keys.get(sealed);
    if (!key) {
      key = createSecretKey(Buffer.from(this.open(sealed), "utf8"));
      if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(sealed, key);
    }
    return key;
  }

  get size(): number {
    return this.keys.size;
  }
}
