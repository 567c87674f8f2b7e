// The worker behind one group's backlog, on both stores: a job of another group waiting behind
// 1,000 due jobs of one receiver starts with the first claim, next to that group's first slots,
// not after its backlog (claims go past a group that can take no more, claim-order.ts).
import { describe, expect, it } from "vitest";
import { backends, sql, useStore } from "../test/backends.ts";
import { manualClock } from "./clock.ts";
import { JobQueue } from "./job-queue.ts";
import { createWorker } from "./worker.ts";

for (const backend of backends) {
  describe(`worker behind a backlog on ${backend}`, () => {
    const store = useStore(backend);

    it("a job of another group behind 1,000 due jobs of one group starts with the first claim", async () => {
      const clock = manualClock();
      const now = clock.now();
      await sql(store.main, "DELETE FROM jobs");
      for (let i = 0; i < 1_000; i += 100) {
        const values = Array.from({ length: 100 }, () => "('x', '{}', ?, 'busy.example', 0)").join(", ");
        await sql(store.main, `INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES ${values}`, Array.from({ length: 100 }, () => now - 60_000));
      }
      await sql(store.main, "INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES ('x', '{}', ?, 'other.example', 0)", [now - 1]);
      const started: (string | null)[] = [];
      const worker = createWorker({
        queue: new JobQueue(store.main.store, clock),
        clock,
        handlers: { x: async (job) => (started.push(job.group), { done: true }) },
        concurrency: 8,
        perGroup: 4,
      });
      expect(await worker.drain()).toBe(1_001);
      // The first claim holds 8 of the busy group's jobs (its share) and the other job; the
      // worker starts 4 of the busy group (perGroup), then the other.
      expect(started.indexOf("other.example")).toBe(4);
    });
  });
}
