// A 429 says "later", and Retry-After says when: the suite waits that long (up to a bound) and
// sends the request again, so a low rate limit costs time instead of turning the run into a test
// of the rate limiter. What stays 429 is counted, and a run whose answers were mostly 429 says so
// (ledger.ts), as it says when most were 401/403 (issue 39 item 6).

/** Longest wait honoured; a longer Retry-After leaves the 429 as the answer. */
export const MAX_RETRY_AFTER_MS = 10_000;
export const RETRIES_ON_429 = 3;

/** Milliseconds to wait for a Retry-After value (delay-seconds or an HTTP date), or undefined when absent, unreadable or beyond the bound. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (!Number.isFinite(ms)) return undefined;
  const wait = Math.max(0, ms);
  return wait <= MAX_RETRY_AFTER_MS ? wait : undefined;
}

/** Resolves true after `ms`, or false at once when the run is interrupted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(ok);
    };
    const abort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}
