// AES-256-GCM for secrets at rest: `v1.<iv>.<tag>.<ciphertext>` in base64url. The version prefix
// leaves room for key rotation.
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from "node:crypto";

export class SecretBox {
  private readonly key: Buffer;
  /**
   * The same key imported once: a Buffer is imported again by every cipher made with it, which
   * was most of opening a secret (a webhook delivery opens its subscription's on every attempt).
   */
  private readonly keyObject: KeyObject;
  constructor(key: Buffer) {
    this.key = key;
    this.keyObject = createSecretKey(key);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.keyObject, iv);
    const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv, cipher.getAuthTag(), data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(".");
    if (version !== "v1") throw new Error(`unknown secret format ${version}`);
    const decipher = createDecipheriv("aes-256-gcm", this.keyObject, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  }

  /** A key of its own for another use of the server key (HKDF-SHA256, `info` names the use), so no two uses share one. */
  deriveKey(info: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.key, Buffer.alloc(0), info, 32));
  }
}
