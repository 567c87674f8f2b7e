// Per-key fixed 60-second windows, each starting at the key's first request after the previous
// window ended (docs/decisions.md L1). The check and the increment happen in one synchronous
// step, so under any concurrency within this process no more than the limit is admitted.

export const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends, 1 to 60 (the contract's RateLimit-Reset range). */
  resetSeconds: number;
}

/**
 * Whole seconds from now until the window that started at `start` ends. A clock that reads
 * earlier than `start` (another instance's, or this one's set back) still answers at most the
 * window's length.
 */
export function secondsLeft(start: number, now: number): number {
  return Math.min(WINDOW_MS / 1000, Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000)));
}

/** The L1 limiter: in this process's memory (SQLite, one process) or in the database (stored-rate-limiter.ts). */
export interface RateLimiter {
  /** Counts one request of `key` unless its window already holds `limit`. */
  hit(key: string, limit: number): Promise<RateDecision>;
  /**
   * The same, answered at once by a limiter that keeps its windows in this process's memory;
   * absent on one that must ask the store (authorize.ts then awaits `hit`).
   */
  hitNow?(key: string, limit: number): RateDecision;
}

export class FixedWindowRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  async hit(key: string, limit: number): Promise<RateDecision> {
    return this.hitNow(key, limit);
  }

  // Synchronous: the check and the increment run in one step.
  hitNow(key: string, limit: number): RateDecision {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now >= w.start + WINDOW_MS) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.prune(now);
    }
    const resetSeconds = secondsLeft(w.start, now);
    if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
    w.count++;
    return { allowed: true, limit, remaining: limit - w.count, resetSeconds };
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + WINDOW_MS) this.windows.delete(k);
  }
}
