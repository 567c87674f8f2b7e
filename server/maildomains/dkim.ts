// DKIM signing keys: RSA 2048 (RFC 8301 makes 1024 a minimum and 2048 the common choice).
import { generateKeyPair, randomBytes } from "node:crypto";

export interface DkimKeys {
  selector: string;
  privateKeyPem: string;
  /** Base64 DER (SPKI) of the public key: the `p=` of the DKIM record. */
  publicKeyBase64: string;
}

export function generateDkimKeys(): Promise<DkimKeys> {
  return new Promise((resolve, reject) =>
    generateKeyPair(
      "rsa",
      { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "der" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } },
      (err, publicKey, privateKey) => {
        if (err) return reject(err);
        // The decided selector (docs/decisions.md, mail domains); a rotation would add a second one.
        const selector = "platform";
        resolve({ selector, privateKeyPem: privateKey, publicKeyBase64: publicKey.toString("base64") });
      },
    ),
  );
}

export function newVerificationToken(): string {
  return randomBytes(16).toString("hex");
}
