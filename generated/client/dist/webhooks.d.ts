/**
 * Checks `X-Platform-Signature` of a webhook delivery: `sha256=` and the lower-case hex
 * HMAC-SHA256 of the raw body, keyed with the whole secret including its `whsec_` prefix.
 * Pass the body exactly as received (before any JSON parsing). The comparison takes the same
 * time wherever the first difference is.
 */
export declare function verifyWebhookSignature(rawBody: string | Uint8Array, signatureHeader: string | null | undefined, secret: string): boolean;
/** Computes the `X-Platform-Signature` value of a body, as the service does. */
export declare function signWebhookBody(rawBody: string | Uint8Array, secret: string): string;
