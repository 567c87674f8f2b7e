// Helpers for certificate tests: CSRs made by openssl (an independent implementation, not ours)
// and chain checks with node:crypto.
import { execFileSync } from "node:child_process";
import { createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A CSR and its key from `openssl req`; `key` is an openssl -newkey argument (ec, rsa:2048...). */
export function opensslCsr(names: string[], key = "ec", keyOpts: string[] = ["-pkeyopt", "ec_paramgen_curve:P-256"]): { csr: string; key: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "csr-"));
  try {
    execFileSync("openssl", [
      "req", "-new", "-newkey", key, ...keyOpts, "-nodes", "-keyout", path.join(dir, "k.pem"), "-out", path.join(dir, "r.pem"),
      "-subj", `/CN=${names[0]}`, "-addext", `subjectAltName=${names.map((n) => `DNS:${n}`).join(",")}`,
    ], { stdio: ["ignore", "ignore", "pipe"] });
    return { csr: readFileSync(path.join(dir, "r.pem"), "utf8"), key: readFileSync(path.join(dir, "k.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function splitChain(fullchain: string): X509Certificate[] {
  return (fullchain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem));
}

/** Every certificate signed by the next one, the last signed by `root` (or self-signed when root is omitted). */
export function chainVerifies(fullchain: string, root?: X509Certificate): boolean {
  const chain = splitChain(fullchain);
  const anchors = root ? [...chain, root] : chain;
  for (let i = 0; i < anchors.length - 1; i++) {
    if (!anchors[i].checkIssued(anchors[i + 1]) || !anchors[i].verify(anchors[i + 1].publicKey)) return false;
  }
  const top = anchors[anchors.length - 1];
  return top.verify(top.publicKey);
}

/** DNS names of a certificate's subjectAltName. */
export function sanNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? "").split(", ").filter((s) => s.startsWith("DNS:")).map((s) => s.slice(4)).sort();
}

export function samePublicKey(privateKeyPem: string, cert: X509Certificate): boolean {
  const fromKey = createPublicKey(createPrivateKey(privateKeyPem)).export({ type: "spki", format: "der" });
  return Buffer.compare(fromKey, cert.publicKey.export({ type: "spki", format: "der" })) === 0;
}
