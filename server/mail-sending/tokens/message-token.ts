// Short signed tokens that name a sent message in the URLs the recipient's side holds: the open
// pixel, click links and the one-click unsubscribe URL; and in the VERP envelope sender, where
// bounces and complaint reports come back (decision T6). Whoever holds one may do exactly that one
// thing to that one message, without an API key, so each token binds its purpose into the MAC (an
// open token is no unsubscribe token) and nothing else is trusted from the outside.
//
// Form: `<field>.<field>...<mac>`, the MAC being HMAC-SHA256 truncated to 80 bits, in the
// lowercase base32 alphabet of resource ids, read back case-insensitively; 80 bits because a
// forger gets one guess per HTTP request, where 2^80 is out of reach, and the URLs stay short.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";

export type TokenPurpose = "open" | "click" | "unsubscribe" | "bounce";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
const MAC_BYTES = 10;
// Fields are ids and small integers; anything else is refused before it reaches a MAC.
const FIELD = /^[a-z0-9_]{1,64}$/;

/** Exported for its own test: the MAC's 10 bytes never leave a tail, other lengths do. */
export function base32(bytes: Buffer): string {
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
  /** Imported once: a Buffer key is imported again by every HMAC made with it (each relayed message signs its VERP sender). */
  private readonly key: KeyObject;

  /** `key`: a key of this use alone, `services.secrets.deriveKey(MESSAGE_TOKEN_KEY_INFO)`. */
  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  /**
   * `bound`: values the MAC covers that the token does not carry (a bounce token's recipient and
   * domain, which the verifier knows from the message it names); they must hold no NUL.
   */
  sign(purpose: TokenPurpose, fields: string[], bound: string[] = []): string {
    for (const f of fields) if (!FIELD.test(f)) throw new Error(`token field ${JSON.stringify(f)} is not [a-z0-9_]`);
    return [...fields, this.mac(purpose, fields, bound)].join(".");
  }

  /** The fields of a token made by `sign` for this purpose (and `bound`), or undefined (wrong key, purpose, binding or shape). */
  verify(purpose: TokenPurpose, token: string, fieldCount: number, bound: string[] = []): string[] | undefined {
    const parts = token.toLowerCase().split(".");
    if (parts.length !== fieldCount + 1) return undefined;
    const mac = parts.pop()!;
    if (!parts.every((f) => FIELD.test(f))) return undefined;
    const expected = Buffer.from(this.mac(purpose, parts, bound));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? parts : undefined;
  }

  private mac(purpose: TokenPurpose, fields: string[], bound: string[]): string {
    if (bound.some((b) => b.includes("\0"))) throw new Error("a bound token value holds NUL");
    // Without bound values the input is what tokens already in sent mail were made with.
    const input = `${purpose}\0${fields.join("\0")}${bound.length ? `\0\0${bound.join("\0")}` : ""}`;
    const h = createHmac("sha256", this.key).update(input).digest();
    return base32(h.subarray(0, MAC_BYTES));
  }
}
