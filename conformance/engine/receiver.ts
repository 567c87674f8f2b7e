// A local endpoint that records webhook deliveries byte for byte. HTTPS uses a throwaway
// self-signed certificate (openssl), for implementations that refuse plain-http subscriber URLs.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

export interface Delivery {
  method: string;
  /** the request target as received (path and query) */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  waitFor(pred: (d: Delivery) => boolean, ms: number): Promise<Delivery | undefined>;
  close(): Promise<void>;
}

function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "conformance-tls-"));
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
      "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", path.join(dir, "k.pem"), "-out", path.join(dir, "c.pem")], { stdio: "ignore" });
    return { key: readFileSync(path.join(dir, "k.pem")), cert: readFileSync(path.join(dir, "c.pem")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `status`: what the receiver answers (a callback's documented status; webhooks get 200). */
export async function startReceiver(protocol: "http" | "https" = "http", status = 200): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      deliveries.push({ method: req.method ?? "", url: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") });
      if (status === 204 || status === 304) res.writeHead(status).end();
      else res.writeHead(status, { "content-type": "application/json" }).end("{}");
      for (const w of waiters) w();
    });
  };
  const server = protocol === "https" ? https.createServer(selfSigned(), handler) : http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${protocol}://127.0.0.1:${port}/hook`,
    deliveries,
    async waitFor(pred, ms) {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const hit = deliveries.find(pred);
        if (hit) return hit;
        await new Promise<void>((r) => {
          const done = () => (waiters.delete(done), r());
          waiters.add(done);
          setTimeout(done, Math.max(0, Math.min(200, deadline - Date.now())));
        });
      }
      return deliveries.find(pred);
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
  };
}
