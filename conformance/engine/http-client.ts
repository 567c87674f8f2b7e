// A small keep-alive HTTP client. node:http is used instead of fetch because it is several times
// faster on loopback, which is where the suite spends its time, and it never normalises the URL.
import http from "node:http";
import https from "node:https";
import type { PreparedRequest, ResponseData } from "./types.ts";
import type { Throttle } from "./throttle.ts";

export interface HttpClient {
  send(req: PreparedRequest): Promise<ResponseData>;
  close(): void;
}

export function createHttpClient(opts: { timeoutMs?: number; throttle?: Throttle; signal?: AbortSignal } = {}): HttpClient {
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const client: HttpClient = {
    async send(req) {
      await opts.throttle?.take();
      // An interrupted run sends nothing more; requests in flight are aborted with the signal.
      opts.signal?.throwIfAborted();
      return new Promise<ResponseData>((resolve, reject) => {
        const started = performance.now();
        const url = new URL(req.url);
        const lib = url.protocol === "https:" ? https : http;
        const headers: Record<string, string> = { ...req.headers };
        if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body));
        const r = lib.request(
          url,
          { method: req.method, headers, agent: url.protocol === "https:" ? httpsAgent : httpAgent, rejectUnauthorized: false, signal: opts.signal },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              const text = Buffer.concat(chunks).toString("utf8");
              const flat: Record<string, string> = {};
              for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(", ") : v;
              let json: unknown;
              let isJson = false;
              if (text.length) {
                try {
                  json = JSON.parse(text);
                  isJson = true;
                } catch {
                  /* not JSON; checks that care say so */
                }
              }
              resolve({ status: res.statusCode ?? 0, headers: flat, text, json, isJson, elapsedMs: performance.now() - started });
            });
            res.on("error", reject);
          },
        );
        r.setTimeout(timeoutMs, () => r.destroy(new Error(`no response within ${timeoutMs} ms`)));
        r.on("error", reject);
        if (req.body !== undefined) r.write(req.body);
        r.end();
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
  return client;
}
