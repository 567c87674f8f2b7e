// The `local` issuer: a CA of this server, created at the first start with its key sealed by the
// server key, that signs at once. `npm start` on a machine without internet still issues, and the
// API's tests need no ACME server. Clients that should trust these certificates trust the CA
// certificate, the last one of every fullchain it issues.
import { randomBytes } from "node:crypto";
import type { Clock } from "../jobs/clock.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CertificateRepository } from "./certificate-repository.ts";
import { importSigningKey, newKeyPair, privateKeyPem } from "./keys.ts";
import type { Issuer } from "./issuer.ts";
import * as x509 from "./x509.ts";

const DAY = 86_400_000;
const SIGNING = { name: "ECDSA", hash: "SHA-256" } as const;
// The lifetime public CAs use, so renewal runs on the same schedule as with ACME.
export const LOCAL_LEAF_DAYS = 90;
const CA_YEARS = 10;

const serial = () => {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f; // positive, as RFC 5280 requires
  return bytes.toString("hex");
};

/** The stored CA, or a new one when this is the first start. */
export async function ensureLocalCa(repo: CertificateRepository, secrets: SecretBox, clock: Clock): Promise<{ certPem: string; keySealed: string }> {
  const existing = await repo.getLocalCa();
  if (existing) return existing;
  const keys = await newKeyPair();
  const now = clock.now();
  const name = `CN=Platform Local CA ${randomBytes(4).toString("hex")}, O=platform-api reference server`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + CA_YEARS * 365 * DAY),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  // Another process (a second start racing this one) may have stored its CA first: use that one.
  return repo.saveLocalCa(cert.toString("pem") + "\n", secrets.seal(await privateKeyPem(keys)));
}

export function localIssuer(repo: CertificateRepository, secrets: SecretBox, clock: Clock): Issuer {
  return {
    name: "local",
    async issue({ domains, csrPem }) {
      const ca = await ensureLocalCa(repo, secrets, clock);
      const caCert = new x509.X509Certificate(ca.certPem);
      const csr = new x509.Pkcs10CertificateRequest(csrPem);
      const now = clock.now();
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: [{ CN: [domains[0]] }],
        issuer: caCert.subject,
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + LOCAL_LEAF_DAYS * DAY),
        publicKey: csr.publicKey,
        signingKey: await importSigningKey(secrets.open(ca.keySealed)),
        signingAlgorithm: SIGNING,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(domains.map((value) => ({ type: "dns" as const, value }))),
          await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
          await x509.SubjectKeyIdentifierExtension.create(csr.publicKey),
        ],
      });
      return leaf.toString("pem") + "\n" + ca.certPem;
    },
  };
}
