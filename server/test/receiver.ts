// A webhook receiver on loopback for tests: records every request byte for byte and answers as
// the test says (a status, a delay, or never). Counts deliveries by envelope id, the way a
// receiver deduplicates.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What to answer to the n-th request (0-based): a status, `{ status, delayMs, body }` or "hang". */
export type Answer = number | { status: number; delayMs?: number; body?: string; headers?: Record<string, string> } | "hang";

export interface TestReceiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests whose answer has not been sent yet. */
  pending(): number;
  /** Resolves when `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (req: Received, n: number) => Answer = () => 200): Promise<TestReceiver> {
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let open = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      const n = received.push(r) - 1;
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
      const a = answer(r, n);
      if (a === "hang") return;
      const { status, delayMs = 0, body = "", headers = {} } = typeof a === "number" ? { status: a } : a;
      open++;
      setTimeout(() => {
        open--;
        res.writeHead(status, headers).end(body);
      }, delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    pending: () => open,
    waitFor: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
