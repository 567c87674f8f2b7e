// A loopback webhook receiver that counts what it is handed: every envelope `{ id, type, data }`
// it gets is kept, so a test can say which event arrived how many times.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Envelope {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export interface EventReceiver {
  url: string;
  received: Envelope[];
  close(): Promise<void>;
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const received: Envelope[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString()) as Envelope);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** How many times each value of `key(item)` occurs. */
export function tally<T>(items: T[], key: (item: T) => string | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}
