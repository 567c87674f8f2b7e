// Waiting for a condition instead of for a time: polls `check` until it holds, and fails naming
// what never happened after a generous bound (no test asserts on how long anything took).
export async function until(what: string, check: () => boolean | Promise<boolean>, bound = { tries: 1200, everyMs: 100 }): Promise<void> {
  for (let i = 0; i < bound.tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, bound.everyMs));
  }
  throw new Error(`never happened: ${what}`);
}

/** Runs `work(i)` for i in [0, n) with at most `concurrency` at once; answers the results in order. */
export async function inParallel<T>(n: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(n);
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
  return results;
}
