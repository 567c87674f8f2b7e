// When a certificate is renewed, and how failed attempts back off.
const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * Renew when a third of the lifetime or 30 days remain, whichever comes sooner (a 90-day
 * certificate at 30 days left, a 30-day one at 10), and never sooner than a day from now: a CA
 * that hands out certificates already inside that window must not make renewal spin.
 */
export function renewalDue(notBefore: number, notAfter: number, now: number): number {
  const window = Math.min((notAfter - notBefore) / 3, 30 * DAY);
  return Math.max(notAfter - window, now + DAY);
}

/** After the n-th failed renewal (1-based): 1 h, 2 h, 4 h ... at most 24 h; the old certificate stays served. */
export function renewalBackoff(failures: number): number {
  return Math.min(HOUR * 2 ** Math.max(0, failures - 1), 24 * HOUR);
}

/** After the n-th unreachable-CA attempt at a first issuance: 30 s, 60 s ... ; the order fails after 5. */
export const ISSUE_ATTEMPTS = 5;
export function issueBackoff(attempts: number): number {
  return 30_000 * 2 ** Math.max(0, attempts - 1);
}

export function daysLeft(notAfter: number, now: number): number {
  return Math.floor((notAfter - now) / DAY);
}
