// The in-memory fixed window with a clock the test moves: when a window starts and ends (both sides of the
// boundary), the exact seconds announced in RateLimit-Reset, and that old windows are forgotten.
import { describe, expect, it } from "vitest";
import { FixedWindowRateLimiter, WINDOW_MS } from "./rate-limiter.ts";

function limiterAt(start = 1_000_000) {
  let t = start;
  const limiter = new FixedWindowRateLimiter(() => t);
  return { limiter, advance: (ms: number) => void (t += ms), set: (ms: number) => void (t = ms) };
}

describe("fixed-window rate limiter", () => {
  it("admits exactly the limit, counting remaining down to 0, then refuses", async () => {
    const { limiter } = limiterAt();
    expect(await limiter.hit("k", 3)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    expect(await limiter.hit("k", 3)).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 60 });
    expect(await limiter.hit("k", 3)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 60 });
    expect(await limiter.hit("k", 3)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 60 });
    expect(await limiter.hit("k", 3)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 60 });
  });

  it("a limit of 0 refuses the first request", async () => {
    const { limiter } = limiterAt();
    expect(await limiter.hit("k", 0)).toEqual({ allowed: false, limit: 0, remaining: 0, resetSeconds: 60 });
  });

  it("keys are counted apart", async () => {
    const { limiter } = limiterAt();
    expect((await limiter.hit("a", 1)).allowed).toBe(true);
    expect((await limiter.hit("a", 1)).allowed).toBe(false);
    expect(await limiter.hit("b", 1)).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 60 });
  });

  it("the reset counts whole seconds up to the window's end, never below 1", async () => {
    const { limiter, advance } = limiterAt();
    void limiter.hit("k", 10);
    advance(1); // 59.999 s left: rounded up
    expect((await limiter.hit("k", 10)).resetSeconds).toBe(60);
    advance(999); // exactly 59 s left
    expect((await limiter.hit("k", 10)).resetSeconds).toBe(59);
    advance(1); // 58.999 s left
    expect((await limiter.hit("k", 10)).resetSeconds).toBe(59);
    advance(58_000); // 0.999 s left
    expect((await limiter.hit("k", 10)).resetSeconds).toBe(1);
    advance(998); // 1 ms left
    expect(await limiter.hit("k", 10)).toEqual({ allowed: true, limit: 10, remaining: 4, resetSeconds: 1 });
  });

  it("the window ends exactly 60 s after its first request: 1 ms before, still refused; at 60 s, a new window", async () => {
    const { limiter, advance } = limiterAt();
    expect((await limiter.hit("k", 1)).allowed).toBe(true);
    advance(59_999);
    expect(await limiter.hit("k", 1)).toEqual({ allowed: false, limit: 1, remaining: 0, resetSeconds: 1 });
    advance(1);
    expect(await limiter.hit("k", 1)).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 60 });
    expect(await limiter.hit("k", 1)).toEqual({ allowed: false, limit: 1, remaining: 0, resetSeconds: 60 });
  });

  it("the next window starts at the first request after the previous ended, not on a fixed grid", async () => {
    const { limiter, advance } = limiterAt();
    void limiter.hit("k", 2);
    advance(90_000); // 30 s after the first window ended
    expect(await limiter.hit("k", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    advance(59_000);
    expect(await limiter.hit("k", 2)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
    expect((await limiter.hit("k", 2)).allowed).toBe(false);
  });

  it("past 100 000 keys, windows that ended (exactly now, too) are forgotten and running ones kept", async () => {
    const { limiter, advance } = limiterAt();
    const windows = (limiter as unknown as { windows: Map<string, unknown> }).windows;
    void limiter.hit("old", 1);
    advance(WINDOW_MS - 1);
    for (let i = 0; i < 99_998; i++) void limiter.hit(`k${i}`, 1);
    advance(1); // "old" ends now; the k* windows run 59.999 s more
    void limiter.hit("new1", 1);
    expect(windows.size).toBe(100_000); // not yet past the threshold: nothing pruned
    expect(windows.has("old")).toBe(true);
    void limiter.hit("new2", 1); // 100 001 keys: prune
    expect(windows.has("old")).toBe(false);
    expect(windows.size).toBe(100_000);
    expect((await limiter.hit("k0", 1)).allowed).toBe(false); // running windows survive the prune
  });
});
