// The outside-world adapter that POSTs one signed event body to a subscriber (seed section 6):
// X-Platform-Event, X-Platform-Signature = sha256=<hex HMAC of the raw body keyed with the whole
// whsec_ secret>. A 10-second timeout or a non-2xx answer is a failed attempt.
import { createHmac } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isPrivateAddress } from "../webhooks/webhook-url.ts";

export interface SendResult {
  delivered: boolean;
  /** 0 when no HTTP answer came (timeout, refused). */
  httpCode: number;
}

export function signature(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface SendOptions {
  /** Development flag: allow private and loopback targets. */
  allowPrivate?: boolean;
  timeoutMs?: number;
}

export async function sendWebhook(url: string, event: string, body: string, secret: string, options: SendOptions = {}): Promise<SendResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  try {
    if (!options.allowPrivate) {
      // Checked again at delivery time: a public name may have been re-pointed at a private address.
      const addresses = await lookup(new URL(url).hostname.replace(/^\[|\]$/g, ""), { all: true });
      if (addresses.some((a) => isPrivateAddress(a.address))) return { delivered: false, httpCode: 0 };
    }
    const res = await fetch(url, {
      method: "POST",
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: { "content-type": "application/json", "x-platform-event": event, "x-platform-signature": signature(body, secret) },
    });
    await res.body?.cancel();
    return { delivered: res.status >= 200 && res.status < 300, httpCode: res.status };
  } catch {
    return { delivered: false, httpCode: 0 };
  }
}
