// SQLite only: one server process owns the file, so every lease found when a worker starts was its
// dead predecessor's and is released at once (db/leases.ts, `ownedAlone`). PostgreSQL has no such
// rule: instances share the queue, and a dead holder's leases are void instead (pg-kill.test.ts).
import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../db/sql.ts";
import { useStore } from "../test/backends.ts";
import type { ManualClock } from "./clock.ts";
import { JobQueue } from "./job-queue.ts";
import { emptyQueue } from "./test/empty-queue.ts";
import { createWorker, type JobHandler } from "./worker.ts";

describe("leases at a worker's start on SQLite", () => {
  const handle = useStore("sqlite");
  let store: Store;
  let clock: ManualClock;
  let queue: JobQueue;
  beforeEach(async () => {
    store = handle.main.store;
    ({ clock, queue } = await emptyQueue(store));
  });

  const worker = (handlers: Record<string, JobHandler>) => createWorker({ queue, clock, handlers });
  const enqueue = (kind: string, payload: unknown) => queue.enqueue(store, kind, payload);

  it("a job leased by a worker that died runs again when the next worker starts", async () => {
    await enqueue("x", { n: 1 });
    expect(await queue.claim(10, 600_000, () => true)).toHaveLength(1);
    // The claimer is gone (kill -9): nothing else may take the job while its lease holds...
    expect(await queue.claim(10, 600_000, () => true)).toHaveLength(0);
    const seen: number[] = [];
    const w = worker({ x: async (job) => (seen.push(job.attempts), { done: true }) });
    // ...but a new server process releases every lease at start.
    w.start();
    await new Promise((r) => setTimeout(r, 50));
    await w.stop();
    expect(seen).toEqual([2]);
    expect(await queue.count()).toBe(0);
  });
});
