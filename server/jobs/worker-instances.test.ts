// Several instances on one PostgreSQL queue (decision P2), what only that store has (one SQLite
// file has one server process; worker.test.ts runs the rest on both stores): a job runs once
// across instances (SKIP LOCKED), and a dead instance's leases are void at once (db/leases.ts).
import { beforeAll, describe, expect, it } from "vitest";
import type { Pg } from "../db/postgres/pg.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { useStore, type Connection } from "../test/backends.ts";
import { manualClock, systemClock, type ManualClock } from "./clock.ts";
import { JobQueue } from "./job-queue.ts";
import { createWorker } from "./worker.ts";

const pgOf = (c: Connection): Pg => {
  if (c.backend !== "postgres") throw new Error("postgres only");
  return c.pg;
};

describe("several instances on one postgres queue", () => {
  const store = useStore("postgres");
  let db: Pg;
  let clock: ManualClock;
  let queue: JobQueue;
  beforeAll(async () => {
    db = pgOf(store.main);
  });
  // Each test on an empty queue and a kind of job of its own.
  let kind = "";
  let n = 0;
  const fresh = async () => {
    await db.query("DELETE FROM jobs");
    kind = `k${++n}`;
    clock = manualClock();
    queue = new JobQueue(storeOnPostgres(db), clock);
  };
  const enqueue = (payload: unknown, options = {}) => queue.enqueue(storeOnPostgres(db), kind, payload, options);

  it("a job leased by an instance that died is claimed at once by another; a live holder's lease holds", async () => {
    await fresh();
    await enqueue({ n: 1 });
    const dying = pgOf(await store.connect());
    const other = new JobQueue(storeOnPostgres(dying), clock);
    expect(await other.claim(10, 600_000, () => true)).toHaveLength(1);
    // The holder is alive: nobody else may take the job while its lease holds.
    expect(await queue.claim(10, 600_000, () => true)).toHaveLength(0);
    // The holder goes away (kill -9 closes its sessions the same way). pg's pool.end() does not
    // wait for the server to see the sockets close, so wait for its sessions to be gone.
    await dying.close();
    while ((await db.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1", [dying.instanceName])).length) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const [again] = await queue.claim(10, 600_000, () => true);
    expect(again.attempts).toBe(2);
  });

  it("two instances with a worker each run 1,000 jobs, each exactly once", async () => {
    await fresh();
    const second = pgOf(await store.connect());
    const queues = [new JobQueue(storeOnPostgres(db), systemClock), new JobQueue(storeOnPostgres(second), systemClock)];
    const runs = new Map<number, number>();
    const byInstance = [0, 0];
    let all: () => void = () => {};
    const finished = new Promise<void>((r) => (all = r));
    const workers = queues.map((q, i) =>
      createWorker({
        queue: q,
        clock: systemClock,
        pollMs: 50,
        handlers: {
          bulk: async (job) => {
            const { n } = job.payload as { n: number };
            runs.set(n, (runs.get(n) ?? 0) + 1);
            byInstance[i]++;
            if (runs.size === 1000) all();
            return { done: true };
          },
        },
      }),
    );
    workers.forEach((w) => w.start());
    await storeOnPostgres(db).transaction(async (tx) => {
      for (let n = 0; n < 1000; n++) await queues[0].enqueue(tx, "bulk", { n });
    });
    await finished;
    await Promise.all(workers.map((w) => w.stop()));
    expect(runs.size).toBe(1000);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect(byInstance[0] + byInstance[1]).toBe(1000);
    expect(await queues[0].count("bulk")).toBe(0);
    console.log(`1,000 jobs on two instances: ${byInstance.join(" + ")}`);
  });
});
