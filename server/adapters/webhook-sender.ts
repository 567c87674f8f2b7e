// POSTs one signed event body to a subscriber (seed section 6) through the SSRF-safe outbound
// adapter: X-Platform-Event, X-Platform-Signature = sha256=<hex HMAC of the raw body keyed with
// the whole whsec_ secret>, and beside it the Standard Webhooks headers (webhook-id = the event's
// id, webhook-timestamp = this attempt, webhook-signature; decision W7, ./webhook-signing.ts).
// Any 2xx within the timeout (10 s) is delivered (decision W2).
import { safePost, type HostResolver } from "./outbound-http.ts";
import { platformSignature, signatureHeaders, signingKeys, type SigningKeyPair } from "./webhook-signing.ts";

export interface SendResult {
  delivered: boolean;
  /** 0 when no HTTP answer came (timeout, refused target, connection error). */
  httpCode: number;
  error?: string;
}

/** The seed's X-Platform-Signature value (kept under its old name for the callers that check it). */
export const signature = platformSignature;

export interface SendOptions {
  /** Development flag: http:// and loopback targets. */
  development?: boolean;
  timeoutMs?: number;
  resolve?: HostResolver;
}

export interface OutgoingEvent {
  /** The envelope's id: webhook-id, the same on every attempt. */
  id: string;
  type: string;
  /** The exact body, as stored and logged. */
  body: string;
}

/**
 * `secret` is the whole whsec_ string or its opened keys (webhooks/signing-keys.ts); `atMs` is the
 * attempt's time (webhook-timestamp).
 */
export async function sendWebhook(url: string, event: OutgoingEvent, secret: string | SigningKeyPair, atMs: number, options: SendOptions = {}): Promise<SendResult> {
  const keys = typeof secret === "string" ? signingKeys(secret) : secret;
  const result = await safePost(url, {
    body: event.body,
    headers: {
      "content-type": "application/json",
      "user-agent": "platform-webhooks/1.0",
      "x-platform-event": event.type,
      ...signatureHeaders(event.id, event.body, keys, atMs),
    },
    timeoutMs: options.timeoutMs,
    development: options.development,
    resolve: options.resolve,
  });
  return { delivered: result.status >= 200 && result.status < 300, httpCode: result.status, error: result.error };
}
