// The outbound POST of a forwarded update to the project's forwardUrl. It goes through the same
// SSRF rules as webhook deliveries (docs/decisions.md W4): https only unless the development flag
// is on, private, loopback and link-local targets refused at send time, redirects not followed.
// TODO(h9): switch to server/adapters/outbound-http.ts (resolve once, connect to the checked
// address) when it lands on main; this keeps its call shape.
import { lookup } from "node:dns/promises";
import { isPrivateAddress } from "../webhooks/webhook-url.ts";

export interface OutboundResult {
  delivered: boolean;
  /** 0 when no HTTP answer came (refused, timeout, a refused address). */
  httpCode: number;
  error?: string;
}

export interface OutboundOptions {
  headers?: Record<string, string>;
  allowPrivate?: boolean;
  timeoutMs?: number;
}

export type OutboundPost = (url: string, body: string, options?: OutboundOptions) => Promise<OutboundResult>;

export const postOutbound: OutboundPost = async (url, body, options = {}) => {
  try {
    if (!options.allowPrivate) {
      const addresses = await lookup(new URL(url).hostname.replace(/^\[|\]$/g, ""), { all: true });
      if (addresses.some((a) => isPrivateAddress(a.address))) return { delivered: false, httpCode: 0, error: "refused: the host resolves to a non-public address" };
    }
    const res = await fetch(url, {
      method: "POST",
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      headers: { "content-type": "application/json", ...options.headers },
    });
    await res.body?.cancel();
    const delivered = res.status >= 200 && res.status < 300;
    return { delivered, httpCode: res.status, ...(delivered ? {} : { error: `answered ${res.status}` }) };
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string } };
    return { delivered: false, httpCode: 0, error: e.cause?.code ?? (e.name === "TimeoutError" ? "no answer within the timeout" : e.name ?? "network error") };
  }
};
