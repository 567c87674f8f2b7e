// What one claim costs with and without a backlog of one group in front of the queue (run by hand:
// `node bench/jobs/claim-bench.ts [--postgres] [--rounds 5] [--reps 200] [--backlog 20000]`; the
// numbers are in server/jobs/README.md). Each case claims, then gives the leases back outside the
// measurement, so every claim sees the same table. Printed per case: the median over rounds of the
// median wall time and of this thread's CPU per claim.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadLine, median } from "../stats.ts";
import { openDatabase } from "../../server/db/database.ts";
import { openPostgres } from "../../server/db/postgres/migrations.ts";
import { startPostgres } from "../../test/support/postgres.ts";
import { manualClock } from "../../server/jobs/clock.ts";
import type { Job } from "../../server/jobs/job-queue.ts";
import { JobQueue } from "../../server/jobs/job-queue.ts";
import { storeOnSqlite } from "../../server/db/sqlite-store.ts";
import { storeOnPostgres } from "../../server/db/postgres/postgres-store.ts";

const { values: args } = parseArgs({
  options: { postgres: { type: "boolean", default: false }, rounds: { type: "string", default: "5" }, reps: { type: "string", default: "200" }, backlog: { type: "string", default: "20000" } },
});
const rounds = Number(args.rounds);
const reps = Number(args.reps);
const backlog = Number(args.backlog);

type GroupRoom = (group: string | null, taken: number) => boolean;
interface Store {
  claim(limit: number, groupRoom: GroupRoom, full: string[], only?: string[]): Job[] | Promise<Job[]>;
  /** Gives back every lease and attempt (not measured). */
  reset(): void | Promise<void>;
  /** Inserts `n` due jobs of `group` at `runAt`. */
  insert(n: number, group: string | null, runAt: number): void | Promise<void>;
  clear(): void | Promise<void>;
  close(): Promise<void>;
}

const clock = manualClock();
const now = clock.now();

async function sqliteStore(): Promise<Store> {
  const dir = mkdtempSync(path.join(tmpdir(), "claim-bench-"));
  const db = openDatabase(dir);
  const queue = new JobQueue(storeOnSqlite(db), clock);
  const add = db.prepare("INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES ('x', '{}', ?, ?, 0)");
  return {
    claim: (limit, room, full, only) => queue.claim(limit, 60_000, room, full, only),
    reset: () => void db.exec("UPDATE jobs SET lease_until = NULL, attempts = 0 WHERE lease_until IS NOT NULL"),
    insert: (n, group, runAt) => {
      db.exec("BEGIN");
      for (let i = 0; i < n; i++) add.run(runAt, group);
      db.exec("COMMIT");
    },
    clear: () => void db.exec("DELETE FROM jobs"),
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(): Promise<Store> {
  const cluster = await startPostgres();
  const pg = await openPostgres(await cluster.newDatabase(), { max: 2 });
  const queue = new JobQueue(storeOnPostgres(pg), clock);
  return {
    claim: (limit, room, full, only) => queue.claim(limit, 60_000, room, full, only),
    reset: async () => void (await pg.query("UPDATE jobs SET lease_until = NULL, leased_by = NULL, attempts = 0 WHERE lease_until IS NOT NULL")),
    insert: async (n, group, runAt) => void (await pg.query("INSERT INTO jobs (kind, payload, run_at, group_key, created_at) SELECT 'x', '{}', $1, $2, 0 FROM generate_series(1, $3)", [runAt, group, n])),
    clear: async () => {
      await pg.query("DELETE FROM jobs");
      await pg.query("VACUUM ANALYZE jobs");
    },
    close: async () => {
      await pg.close();
      await cluster.stop();
    },
  };
}

interface Case {
  name: string;
  /** Fills the (empty) table. */
  setup(s: Store): Promise<void>;
  claim(s: Store): Job[] | Promise<Job[]>;
}

const any: GroupRoom = () => true;
const inFront = async (s: Store) => {
  await s.insert(backlog, "A", now - 60_000);
  await s.insert(4, "B", now - 1_000);
  await s.insert(4, null, now - 500);
};
const cases: Case[] = [
  {
    name: "claim at the head (32 of 10 groups' 1,000 jobs)",
    setup: async (s) => {
      for (let g = 0; g < 10; g++) await s.insert(100, `g${g}`, now - 1_000 + g);
    },
    claim: (s) => s.claim(32, any, []),
  },
  {
    // The webhook benchmark's shape: every job for one receiver, which takes 32 (its share).
    name: `claim of 96 with one group's ${backlog} jobs only, 32 of them taken`,
    setup: (s) => Promise.resolve(s.insert(backlog, "A", now - 60_000)),
    claim: (s) => s.claim(96, (g, n) => g !== "A" || n < 32, []),
  },
  { name: `refill of group B behind ${backlog} jobs of A`, setup: inFront, claim: (s) => s.claim(8, any, [], ["B"]) },
  { name: `claim with full group A's ${backlog} jobs in front`, setup: inFront, claim: (s) => s.claim(32, any, ["A"]) },
  { name: `claim with group A at its room, ${backlog} jobs in front`, setup: inFront, claim: (s) => s.claim(32, (g, n) => g !== "A" || n < 2, []) },
];

const store = args.postgres ? await postgresStore() : await sqliteStore();
console.log(`claim cost on ${args.postgres ? "PostgreSQL" : "SQLite"}, ${rounds} rounds of ${reps} claims; ${loadLine()}`);
try {
  for (const c of cases) {
    await store.clear();
    await c.setup(store);
    const wall: number[] = [];
    const cpu: number[] = [];
    let claimed = 0;
    for (let r = 0; r < rounds; r++) {
      const w: number[] = [];
      const u: number[] = [];
      for (let i = 0; i < reps; i++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        claimed = (await c.claim(store)).length;
        w.push((performance.now() - t0) * 1000);
        const d = process.cpuUsage(c0);
        u.push(d.user + d.system);
        await store.reset();
      }
      wall.push(median(w));
      cpu.push(median(u));
    }
    console.log(`${c.name}: ${median(wall).toFixed(0)} us wall, ${median(cpu).toFixed(0)} us CPU per claim (${claimed} jobs)`);
  }
} finally {
  await store.close();
}
console.log(loadLine());
