// The certificate STARTTLS offers until the certificates area can supply a real one: an ECDSA
// P-256 self-signed certificate for the mail host, created at the first start and kept in the
// data folder (the key file mode 0600, like server.key). Senders' MTAs encrypt opportunistically
// and do not check MX certificates (RFC 7435), so self-signed still protects against passive
// listening.
import { webcrypto } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

export interface TlsMaterial {
  key: string;
  cert: string;
}

const VALID_DAYS = 825;

export async function loadOrCreateTlsCertificate(dataDir: string, hostName: string): Promise<TlsMaterial> {
  const keyFile = path.join(dataDir, "smtp-tls.key");
  const certFile = path.join(dataDir, "smtp-tls.crt");
  if (existsSync(keyFile) && existsSync(certFile)) return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8") };

  const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1"),
      name: `CN=${hostName}`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + VALID_DAYS * 86_400_000),
      signingAlgorithm: algorithm,
      keys,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: hostName }])],
    },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString("base64").replace(/.{64}/g, "$&\n").trim()}\n-----END PRIVATE KEY-----\n`;
  const cert = certificate.toString("pem") + "\n";
  writeFileSync(keyFile, key, { mode: 0o600 });
  writeFileSync(certFile, cert);
  return { key, cert };
}
