/**
 * Checks `X-Platform-Signature` of a webhook delivery: `sha256=` and the lower-case hex
 * HMAC-SHA256 of the raw body, keyed with the whole secret including its `whsec_` prefix.
 * Pass the body exactly as received (before any JSON parsing). The comparison takes the same
 * time wherever the first difference is.
 */
export declare function verifyWebhookSignature(rawBody: string | Uint8Array, signatureHeader: string | null | undefined, secret: string): boolean;
/** Computes the `X-Platform-Signature` value of a body, as the service does. */
export declare function signWebhookBody(rawBody: string | Uint8Array, secret: string): string;
/** The Standard Webhooks headers as any HTTP library hands them over (names in any case). */
export type WebhookHeaders = {
    get(name: string): string | null;
} | Record<string, string | string[] | undefined>;
export interface StandardWebhookOptions {
    /**
     * How far `webhook-timestamp` may be from now, either way, in seconds (default 300, the
     * Standard Webhooks recommendation). An older delivery is refused: a captured request cannot be
     * replayed later, and its timestamp cannot be moved without breaking the signature.
     */
    toleranceSeconds?: number;
    /** The receiver's clock, epoch milliseconds (default Date.now). */
    now?: () => number;
}
export type StandardWebhookCheck = {
    ok: true;
    /**
     * `webhook-id`, the event's id, the same on every retry and redelivery. The timestamp check
     * stops old captures only: to refuse a repeated delivery within the tolerance (and a retry
     * of an event already handled), remember the ids you processed and skip one seen before.
     */
    id: string;
    /** `webhook-timestamp`, Unix seconds: when this attempt was made. */
    timestamp: number;
} | {
    ok: false;
    reason: "missing-headers" | "bad-timestamp" | "too-old" | "too-new" | "bad-signature";
};
/** Computes a `webhook-signature` value (`v1,<base64>`), as the service does. */
export declare function signStandardWebhook(id: string, timestampSeconds: number, rawBody: string | Uint8Array, secret: string): string;
/**
 * Checks the Standard Webhooks headers of a delivery (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`; standardwebhooks.com): the timestamp within the tolerance of now, and a
 * `v1` signature of `id.timestamp.body` made with the secret as createWebhook showed it. Pass the
 * body exactly as received. Answers why a delivery is refused.
 */
export declare function checkStandardWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: StandardWebhookOptions): StandardWebhookCheck;
/** `checkStandardWebhook(...).ok`: true only for a fresh delivery signed with this secret. */
export declare function verifyStandardWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: StandardWebhookOptions): boolean;
