// Pebble (Let's Encrypt's test ACME server, Debian package `pebble`) on loopback for the
// certificate tests: its HTTPS certificate made with openssl here, its DNS resolver pointed at
// our authoritative server, no artificial sleeps or nonce rejections, no authorization reuse,
// so every order really answers its DNS-01 challenges.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.ts";

export const PEBBLE = "/usr/bin/pebble";

export interface Pebble {
  directoryUrl: string;
  /** The PEM file of the CA that signed Pebble's HTTPS certificate (for ACME_CA_FILE). */
  tlsCaFile: string;
  /** Pebble's issuing root, from its management interface. */
  root(): Promise<string>;
  stop(): Promise<void>;
}

/** The HTTPS certificate Pebble serves, made before the platform starts so it can trust it. */
export function pebbleTls(): { dir: string; certFile: string; keyFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "pebble-"));
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
    "-subj", "/CN=pebble test", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-keyout", keyFile, "-out", certFile,
  ], { stdio: ["ignore", "ignore", "pipe"] });
  return { dir, certFile, keyFile };
}

export function getText(url: string, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca: caPem }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c) => (body += c)).on("end", () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode}`))));
    }).on("error", reject);
  });
}

/**
 * `eab`: the CA requires External Account Binding (RFC 8555 7.3.4) and knows these key ids with
 * their base64url HMAC keys, as commercial ACME CAs (ZeroSSL, Google, Sectigo) do.
 */
export async function startPebble(tls: ReturnType<typeof pebbleTls>, dnsPort: number, options: { validityDays?: number; eab?: Record<string, string> } = {}): Promise<Pebble> {
  const [acmePort, managementPort, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const configFile = path.join(tls.dir, "pebble-config.json");
  writeFileSync(configFile, JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: tls.certFile,
      privateKey: tls.keyFile,
      // Validation ports for http-01 and tls-alpn-01, unused (DNS-01 only) but kept on free ports.
      httpPort,
      tlsPort,
      ocspResponderURL: "",
      externalAccountBindingRequired: Boolean(options.eab),
      ...(options.eab ? { externalAccountMACKeys: options.eab } : {}),
      certificateValidityPeriod: (options.validityDays ?? 90) * 86_400,
    },
  }));
  const child: ChildProcess = spawn(PEBBLE, ["-config", configFile, "-dnsserver", `127.0.0.1:${dnsPort}`], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: "1", PEBBLE_WFE_NONCEREJECT: "0", PEBBLE_AUTHZREUSE: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ca = readFileSync(tls.certFile, "utf8");
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
  for (let i = 0; ; i++) {
    try {
      await getText(directoryUrl, ca);
      break;
    } catch (error) {
      if (child.exitCode !== null || i > 100) {
        child.kill();
        throw new Error(`pebble did not start: ${(error as Error).message}\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    directoryUrl,
    tlsCaFile: tls.certFile,
    root: () => getText(`https://127.0.0.1:${managementPort}/roots/0`, ca),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
