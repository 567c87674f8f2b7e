// Short signed tokens that name a sent message in the URLs the recipient's side holds: the open
// pixel, click links and the one-click unsubscribe URL. Whoever holds one may do exactly that one
// thing to that one message, without an API key, so each token binds its purpose into the MAC (an
// open token is no unsubscribe token) and nothing else is trusted from the outside.
//
// Form: `<field>.<field>...<mac>`, the MAC being HMAC-SHA256 truncated to 80 bits, in the
// lowercase base32 alphabet of resource ids, read back case-insensitively; 80 bits because a
// forger gets one guess per HTTP request, where 2^80 is out of reach, and the URLs stay short.
import { createHmac, timingSafeEqual } from "node:crypto";

export type TokenPurpose = "open" | "click" | "unsubscribe";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
const MAC_BYTES = 10;
// Fields are ids and small integers; anything else is refused before it reaches a MAC.
const FIELD = /^[a-z0-9_]{1,64}$/;

function base32(bytes: Buffer): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** HKDF info of the tokens' key, derived from the server key. */
export const MESSAGE_TOKEN_KEY_INFO = "platform mail message tokens v1";

export class MessageTokens {
  private readonly key: Buffer;

  /** `key`: a key of this use alone, `services.secrets.deriveKey(MESSAGE_TOKEN_KEY_INFO)`. */
  constructor(key: Buffer) {
    this.key = key;
  }

  sign(purpose: TokenPurpose, fields: string[]): string {
    for (const f of fields) if (!FIELD.test(f)) throw new Error(`token field ${JSON.stringify(f)} is not [a-z0-9_]`);
    return [...fields, this.mac(purpose, fields)].join(".");
  }

  /** The fields of a token made by `sign` for this purpose, or undefined (wrong key, purpose or shape). */
  verify(purpose: TokenPurpose, token: string, fieldCount: number): string[] | undefined {
    const parts = token.toLowerCase().split(".");
    if (parts.length !== fieldCount + 1) return undefined;
    const mac = parts.pop()!;
    if (!parts.every((f) => FIELD.test(f))) return undefined;
    const expected = Buffer.from(this.mac(purpose, parts));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? parts : undefined;
  }

  private mac(purpose: TokenPurpose, fields: string[]): string {
    const h = createHmac("sha256", this.key).update(`${purpose}\0${fields.join("\0")}`).digest();
    return base32(h.subarray(0, MAC_BYTES));
  }
}
