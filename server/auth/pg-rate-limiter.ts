// The L1 rate limit counted in PostgreSQL, so it holds across every instance (decision P4): one
// upsert per request. The row lock orders concurrent hits of one key; the count stops at
// limit + 1, so the count a hit gets back says whether it was admitted (at most the limit are).
import type { Pg } from "../db/postgres/pg.ts";
import { WINDOW_MS, type RateDecision, type RateLimiter } from "./rate-limiter.ts";

const HIT = `INSERT INTO rate_windows AS w (key, window_start, count) VALUES ($1, $2, 1)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN w.window_start + $4 <= $2 THEN $2 ELSE w.window_start END,
    count = CASE WHEN w.window_start + $4 <= $2 THEN 1 ELSE LEAST(w.count + 1, $3 + 1) END
  RETURNING window_start, count`;

export class PgRateLimiter implements RateLimiter {
  private readonly db: Pg;
  private readonly now: () => number;

  constructor(db: Pg, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  async hit(key: string, limit: number): Promise<RateDecision> {
    const now = this.now();
    // A named statement: each pooled session parses and plans it once, not on every request.
    // This upsert is the only database work of a cached read (GET /v1/mailboxes), and planning
    // was about 45% of PostgreSQL's CPU for it (server/README.md, Benchmarks).
    const { rows } = await this.db.pool.query<{ window_start: number; count: number }>({ name: "rate-limit-hit", text: HIT, values: [key, now, limit, WINDOW_MS] });
    const w = rows[0];
    const resetSeconds = Math.max(1, Math.ceil((w.window_start + WINDOW_MS - now) / 1000));
    return { allowed: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), resetSeconds };
  }
}
