// Time as the background work sees it. Production reads the wall clock; tests inject a manual
// clock so a retry schedule of 20 hours runs in milliseconds, with no timed assertions.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let t = start;
  return {
    now: () => t,
    set: (ms) => void (t = ms),
    advance: (ms) => void (t += ms),
  };
}
