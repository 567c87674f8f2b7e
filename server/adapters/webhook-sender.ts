// POSTs one signed event body to a subscriber (seed section 6) through the SSRF-safe outbound
// adapter: X-Platform-Event, X-Platform-Signature = sha256=<hex HMAC of the raw body keyed with
// the whole whsec_ secret>. Any 2xx within the timeout (10 s) is delivered (decision W2).
import { createHmac, type KeyObject } from "node:crypto";
import { safePost, type HostResolver } from "./outbound-http.ts";

export interface SendResult {
  delivered: boolean;
  /** 0 when no HTTP answer came (timeout, refused target, connection error). */
  httpCode: number;
  error?: string;
}

/** `secret` is the whole whsec_ string, or the same bytes as a key (webhooks/signing-keys.ts). */
export function signature(body: string, secret: string | KeyObject): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface SendOptions {
  /** Development flag: http:// and loopback targets. */
  development?: boolean;
  timeoutMs?: number;
  resolve?: HostResolver;
}

export async function sendWebhook(url: string, event: string, body: string, secret: string | KeyObject, options: SendOptions = {}): Promise<SendResult> {
  const result = await safePost(url, {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "platform-webhooks/1.0",
      "x-platform-event": event,
      "x-platform-signature": signature(body, secret),
    },
    timeoutMs: options.timeoutMs,
    development: options.development,
    resolve: options.resolve,
  });
  return { delivered: result.status >= 200 && result.status < 300, httpCode: result.status, error: result.error };
}
