// Verifies a forward with the Standard Webhooks reference implementation (the `standardwebhooks`
// library) at a given moment: the library reads the time from Date.now, and tests that drive a
// manual clock fake Date alone for the call.
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";
import type { IncomingHttpHeaders } from "node:http";

export function verifyAt(atMs: number, secret: string, body: string, headers: IncomingHttpHeaders): unknown {
  vi.useFakeTimers({ now: atMs, toFake: ["Date"] });
  try {
    return new Webhook(secret).verify(body, Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])));
  } finally {
    vi.useRealTimers();
  }
}
