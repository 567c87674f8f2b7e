// Keys and CSRs the server makes for orders without an own CSR: ECDSA P-256, the size every CA
// accepts and the cheapest to handshake with. The private key is PEM (PKCS#8), sealed before storage.
import * as x509 from "./x509.ts";

const EC_P256 = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING = { name: "ECDSA", hash: "SHA-256" } as const;

export function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export async function newKeyPair(): Promise<CryptoKeyPair> {
  return (await globalThis.crypto.subtle.generateKey(EC_P256, true, ["sign", "verify"])) as CryptoKeyPair;
}

export async function privateKeyPem(keys: CryptoKeyPair): Promise<string> {
  return toPem(await globalThis.crypto.subtle.exportKey("pkcs8", keys.privateKey), "PRIVATE KEY");
}

export async function importSigningKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
  return globalThis.crypto.subtle.importKey("pkcs8", der, EC_P256, false, ["sign"]);
}

/** A CSR for `domains` (the first is the subject's CN), signed with `keys`. */
export async function makeCsr(domains: string[], keys: CryptoKeyPair): Promise<string> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: [domains[0]] }],
    keys,
    signingAlgorithm: SIGNING,
    extensions: [new x509.SubjectAlternativeNameExtension(domains.map((value) => ({ type: "dns" as const, value })))],
  });
  return csr.toString("pem") + "\n";
}

/** A new key and a CSR for it: the key sealed-ready as PEM, the CSR to hand to the issuer. */
export async function newKeyAndCsr(domains: string[]): Promise<{ keyPem: string; csrPem: string }> {
  const keys = await newKeyPair();
  return { keyPem: await privateKeyPem(keys), csrPem: await makeCsr(domains, keys) };
}
