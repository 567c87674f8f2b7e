// The behaviour of the L1 rate limiter on either backend: fixed 60 s windows from a key's first
// request, and never more than the limit admitted under concurrency (across connections for the
// limiter counted in the database).
import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { RateLimiter } from "./rate-limiter.ts";

export interface RateLimiterFactory {
  /** Which limiter, for the suite's name. */
  name: string;
  make: (c: Connection, now: () => number) => RateLimiter;
  /** Run once on the suite's store before its tests. */
  prepare?: (c: Connection) => Promise<void>;
  /** Whether connections share the count (the stored limiter); the in-memory one lives in its one process. */
  sharedAcrossInstances: boolean;
}

let n = 0;
const freshKey = () => `key_rate${++n}_${Math.random().toString(36).slice(2)}`;

export function describeRateLimiter(backend: BackendName, f: RateLimiterFactory): void {
  describe(`${f.name} rate limiter on ${backend}`, () => {
    const store = useStore(backend);
    beforeAll(async () => f.prepare?.(store.main));

    it("admits the limit in a window, then refuses until the window ends", async () => {
      const clock = manualClock();
      const limiter = f.make(store.main, clock.now);
      const key = freshKey();
      expect(await limiter.hit(key, 3)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
      clock.advance(10_500);
      expect(await limiter.hit(key, 3)).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 50 });
      expect(await limiter.hit(key, 3)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 50 });
      expect(await limiter.hit(key, 3)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 50 });
      clock.advance(49_499);
      expect(await limiter.hit(key, 3)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 1 });
      clock.advance(1);
      // The window started at the first request: 60 s later a new one starts with this request.
      expect(await limiter.hit(key, 3)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    });

    it("answers a reset of at most 60 s to a hit whose clock reads earlier than the window's start", async () => {
      // Two instances' clocks differ by a little, or a request computed its time before another
      // opened the window: the contract's RateLimit-Reset is 1 to 60.
      let t = 1_000_000;
      const limiter = f.make(store.main, () => t);
      const key = freshKey();
      expect((await limiter.hit(key, 5)).resetSeconds).toBe(60);
      t -= 1_500;
      expect(await limiter.hit(key, 5)).toEqual({ allowed: true, limit: 5, remaining: 3, resetSeconds: 60 });
    });

    it("keys do not share a window", async () => {
      const clock = manualClock();
      const limiter = f.make(store.main, clock.now);
      const [a, b] = [freshKey(), freshKey()];
      expect((await limiter.hit(a, 1)).allowed).toBe(true);
      expect((await limiter.hit(a, 1)).allowed).toBe(false);
      expect((await limiter.hit(b, 1)).allowed).toBe(true);
    });

    it("concurrent hits of one key each count against the limit they came with", async () => {
      // PostgreSQL counts the hits that wait for one upsert together; a changed limit is not merged.
      const limiter = f.make(store.main, manualClock().now);
      const key = freshKey();
      const decisions = await Promise.all([5, 5, 5, 1, 5, 2].map((limit) => limiter.hit(key, limit)));
      expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([[true, 5, 4], [true, 5, 3], [true, 5, 2], [false, 1, 0], [true, 5, 1], [false, 2, 0]]);
    });

    it(`300 concurrent hits${f.sharedAcrossInstances ? " from two instances" : ""} admit exactly the limit`, async () => {
      const clock = manualClock();
      const first = f.make(store.main, clock.now);
      const second = f.sharedAcrossInstances ? f.make(await store.connect(), clock.now) : first;
      const key = freshKey();
      const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? first : second).hit(key, 120)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(120);
      expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    });
  });
}
