// Client-side rate limiting (`--rate-limit 100/m`) and a bounded worker pool (`--workers`).
export interface Throttle {
  take(): Promise<void>;
}

export function parseRate(spec: string): { count: number; perMs: number } {
  const m = /^(\d+)\s*\/\s*(\d*)\s*(s|m|h)$/.exec(spec.trim());
  if (!m) throw new Error(`--rate-limit must look like 100/m, 10/s or 1000/h, got "${spec}"`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[m[3] as "s" | "m" | "h"];
  return { count: Number(m[1]), perMs: unit * (m[2] ? Number(m[2]) : 1) };
}

/** Evenly spaced requests: bursts would trip the very server-side limits the suite tests. */
export function createThrottle(spec: string): Throttle {
  const { count, perMs } = parseRate(spec);
  const gap = perMs / count;
  let next = 0;
  return {
    async take() {
      const now = Date.now();
      const at = Math.max(now, next);
      next = at + gap;
      if (at > now) await new Promise((r) => setTimeout(r, at - now));
    },
  };
}

export async function runPool<T>(items: T[], workers: number, fn: (item: T) => Promise<void>): Promise<void> {
  let index = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.max(1, Math.min(workers, items.length)) }, async () => {
    while (index < items.length && !failed) {
      const item = items[index++];
      try {
        await fn(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  // Every lane ends before the pool does (an interrupted run must not leave a lane writing into
  // the ledger while the report is printed; after an error no lane takes a new item); then the
  // first error is thrown.
  const settled = await Promise.allSettled(lanes);
  const rejected = settled.find((s) => s.status === "rejected");
  if (rejected) throw rejected.reason;
}
