// The L1 rate limit counted in the database, so it holds across every instance sharing it
// (decision P4; the PostgreSQL composition uses it, SQLite's single process counts in memory).
// The row's lock orders concurrent hits of one key. Hits are numbered within their window: a hit
// is admitted when its number is at most the limit, so at most the limit are, on any number of
// instances. One upsert counts all the hits of a key that arrived while the key's previous upsert
// was in flight (a batch of n takes n consecutive numbers at once): a busy key costs one round
// trip per round trip's worth of requests, not one per request, and a quiet one waits for nothing.
import type { Sql } from "../db/sql.ts";
import { secondsLeft, WINDOW_MS, type RateDecision, type RateLimiter } from "./rate-limiter.ts";

// n hits at once (the inserted count, excluded.count). The count grows by n until it passes the
// limit, then stops (at limit + n, or where it stood when a lowered limit finds it higher), so the
// count a batch gets back minus n is the number before the batch whenever any of the batch can be
// admitted, and at least the limit when none can. CASE rather than GREATEST/LEAST, which SQLite lacks.
// Parameters: key, now, n, window, window, limit, limit, limit.
const HIT = `INSERT INTO rate_windows AS w (key, window_start, count) VALUES (?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN w.window_start + ? <= excluded.window_start THEN excluded.window_start ELSE w.window_start END,
    count = CASE
      WHEN w.window_start + ? <= excluded.window_start THEN excluded.count
      WHEN w.count <= ? THEN w.count + excluded.count
      WHEN w.count > ? + excluded.count THEN w.count
      ELSE ? + excluded.count END
  RETURNING window_start, count`;

interface Waiting {
  limit: number;
  resolve(decision: RateDecision): void;
  reject(error: unknown): void;
}

export class StoredRateLimiter implements RateLimiter {
  private readonly db: Sql;
  private readonly now: () => number;
  /** Per key with an upsert in flight: the hits that arrived since, for the next upsert. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(db: Sql, now: () => number = Date.now) {
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
    // The store names the statement: each pooled PostgreSQL session parses and plans it once.
    // This upsert is the only database work of a cached read (GET /v1/mailboxes), and planning it
    // was about 45% of PostgreSQL's CPU per hit (server/README.md, Benchmarks).
    const row = (await this.db.get<{ window_start: number; count: number }>(HIT, [key, now, n, WINDOW_MS, WINDOW_MS, limit, limit, limit]))!;
    return { now, start: row.window_start, count: row.count };
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
