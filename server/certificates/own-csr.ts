// Checks of a CSR the caller brings: a well-formed PEM request, a signature that verifies with
// its own key (proof the caller holds the key), names exactly the order's domains, and a key no
// CA would refuse: RSA of 2048 to 8192 bits, or ECDSA on P-256 or P-384.
import { createPublicKey } from "node:crypto";
import * as x509 from "./x509.ts";

const PEM = /^-----BEGIN CERTIFICATE REQUEST-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END CERTIFICATE REQUEST-----\s*$/;
const CURVES = new Set(["prime256v1", "secp384r1"]);

/** A message saying what is wrong with the CSR, or undefined when it fits the order. */
export async function ownCsrProblem(pem: string, domains: string[]): Promise<string | undefined> {
  if (!PEM.test(pem)) return "must be one PEM certificate request (-----BEGIN CERTIFICATE REQUEST----- ... -----END CERTIFICATE REQUEST-----)";
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(pem);
  } catch {
    return "is not a readable PKCS#10 certificate request";
  }
  let signed: boolean;
  try {
    signed = await csr.verify();
  } catch {
    signed = false;
  }
  if (!signed) return "has a signature that does not verify with its own public key";
  const keyProblem = weakKeyProblem(csr);
  if (keyProblem) return keyProblem;
  const names = csrNames(csr);
  if (!names) return "may name only DNS names (no IP addresses, e-mail addresses or URIs)";
  const want = new Set(domains.map((d) => d.toLowerCase()));
  const same = names.size === want.size && [...names].every((n) => want.has(n));
  if (!same) return `names (${[...names].join(", ") || "none"}) must equal body.domains (${[...want].join(", ")})`;
  return undefined;
}

function weakKeyProblem(csr: x509.Pkcs10CertificateRequest): string | undefined {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: "der", type: "spki" });
  } catch {
    return "has a public key of an unknown type";
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "rsa") {
    const bits = details.modulusLength ?? 0;
    return bits >= 2048 && bits <= 8192 ? undefined : `has an RSA key of ${bits} bits; 2048 to 8192 are accepted`;
  }
  if (key.asymmetricKeyType === "ec") {
    return CURVES.has(details.namedCurve ?? "") ? undefined : `has an EC key on ${details.namedCurve ?? "an unknown curve"}; P-256 and P-384 are accepted`;
  }
  return `has a key of type ${key.asymmetricKeyType ?? "unknown"}; RSA (2048 to 8192 bits) and ECDSA P-256 or P-384 are accepted`;
}

/** CN and DNS SANs, lowercase; undefined when the CSR names anything but DNS names. */
function csrNames(csr: x509.Pkcs10CertificateRequest): Set<string> | undefined {
  const names = new Set<string>();
  for (const cn of csr.subjectName.getField("CN")) names.add(cn.toLowerCase());
  const san = csr.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension) as x509.SubjectAlternativeNameExtension | undefined;
  for (const n of san?.names.items ?? []) {
    if (n.type !== "dns") return undefined;
    names.add(n.value.toLowerCase());
  }
  return names;
}
