// When the built-in relay tries a deferred message again (4xx or no connection), counted from
// the previous attempt: 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 24 h, 24 h
// (about 4 days in all, the order of what MTAs keep mail for). After the last one the message is
// soft_bounced when a recipient server kept answering 4xx, failed when none ever answered.
export const RETRY_DELAYS_MS = [1, 5, 15, 30, 60, 120, 240, 480, 720, 1440, 1440].map((m) => m * 60_000);

/** Delay before the next attempt after `attempts` attempts, or undefined when none is left. */
export function nextRetryDelay(attempts: number): number | undefined {
  return RETRY_DELAYS_MS[attempts - 1];
}
