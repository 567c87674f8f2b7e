// The messenger platform proves an update is from it only by echoing the secret_token we
// registered with setWebhook in X-Telegram-Bot-Api-Secret-Token; without it anyone who learns a
// hook URL could inject updates. Compared in constant time over fixed-length digests, so neither
// the content nor the length of the secret leaks through timing.
import { createHash, timingSafeEqual } from "node:crypto";

/** Whether the header value `given` is exactly `expected`; a missing or repeated header never is. */
export function secretMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
