// The L1 rate limit counted in PostgreSQL, so it holds across every instance (decision P4). The
// row lock orders concurrent hits of one key. Hits are numbered within their window: a hit is
// admitted when its number is at most the limit, so at most the limit are, on any number of
// instances. One upsert counts all the hits of a key that arrived while the key's previous upsert
// was in flight (a batch of n takes n consecutive numbers at once): a busy key costs one round
// trip per round trip's worth of requests, not one per request, and a quiet one waits for nothing.
import type { Pg } from "../db/postgres/pg.ts";
import { secondsLeft, WINDOW_MS, type RateDecision, type RateLimiter } from "./rate-limiter.ts";

// $5 hits at once. The count grows by $5 until it passes the limit, then stops (at limit + $5, or
// where it stood when a lowered limit finds it higher), so the count a batch gets back minus $5
// is the number before the batch whenever any of the batch can be admitted, and at least the
// limit when none can.
const HIT = `INSERT INTO rate_windows AS w (key, window_start, count) VALUES ($1, $2, $5)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN w.window_start + $4 <= $2 THEN $2 ELSE w.window_start END,
    count = CASE WHEN w.window_start + $4 <= $2 THEN $5 ELSE GREATEST(w.count, LEAST(w.count + $5, $3 + $5)) END
  RETURNING window_start, count`;

interface Waiting {
  limit: number;
  resolve(decision: RateDecision): void;
  reject(error: unknown): void;
}

export class PgRateLimiter implements RateLimiter {
  private readonly db: Pg;
  private readonly now: () => number;
  /** Per key with an upsert in flight: the hits that arrived since, for the next upsert. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(db: Pg, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  hit(key: string, limit: number): Promise<RateDecision> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) return void queue.push({ limit, resolve, reject });
      this.waiting.set(key, [{ limit, resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    const queue = this.waiting.get(key)!;
    while (queue.length) {
      // One limit per upsert: a key's limit changed meanwhile sends the rest in the next one.
      const limit = queue[0].limit;
      const same = queue.findIndex((w) => w.limit !== limit);
      const batch = queue.splice(0, same === -1 ? queue.length : same);
      try {
        this.decide(batch, limit, await this.count(key, limit, batch.length));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.waiting.delete(key);
  }

  private async count(key: string, limit: number, n: number): Promise<{ now: number; start: number; count: number }> {
    const now = this.now();
    // A named statement: each pooled session parses and plans it once. This upsert is the only
    // database work of a cached read (GET /v1/mailboxes), and planning it was about 45% of
    // PostgreSQL's CPU per hit (server/README.md, Benchmarks).
    const { rows } = await this.db.pool.query<{ window_start: number; count: number }>({
      name: "rate-limit-hit",
      text: HIT,
      values: [key, now, limit, WINDOW_MS, n],
    });
    return { now, start: rows[0].window_start, count: rows[0].count };
  }

  private decide(batch: Waiting[], limit: number, w: { now: number; start: number; count: number }): void {
    // Another instance's hit, its clock a little ahead, may have opened the window after our `now`.
    const resetSeconds = secondsLeft(w.start, w.now);
    const before = w.count - batch.length;
    batch.forEach((hit, i) => {
      const number = before + i + 1;
      hit.resolve({ allowed: number <= limit, limit, remaining: Math.max(0, limit - number), resetSeconds });
    });
  }
}
