// What a claim takes, on either backend (server/test/backends.ts): due jobs in (run_at, id) order,
// each group up to its room, full groups left out, a refill reading its groups only; compared with
// a plain walk over every due job. And what it reads: a backlog of one group in front of the queue
// is not read row by row (PostgreSQL counts the rows the claim's transaction fetched from `jobs`;
// SQLite shows it in the query plans of the statements a refill runs).
import type { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pg } from "../db/postgres/pg.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import { MAX_MERGED_GROUPS, WINDOW_FACTOR } from "./claim-order.ts";
import { manualClock, type Clock, type ManualClock } from "./clock.ts";
import type { Job } from "./job-queue.ts";

type GroupRoom = (group: string | null, taken: number) => boolean;

export interface ClaimingQueue {
  claim(limit: number, leaseMs: number, groupRoom: GroupRoom, fullGroups: string[], onlyGroups?: string[]): Promise<Job[]>;
}

/** What the suite needs of a backend: its queue on a connection, and a way to see what a claim reads. */
export interface ClaimBackend {
  /** The queue on `c`; PostgreSQL's on `pg` as given (the suite passes one that counts reads). */
  make(c: Connection, clock: Clock): ClaimingQueue;
}

interface Row {
  runAt: number;
  group: string | null;
}

const LEASE = 60_000;

/**
 * Rows of `jobs` this PostgreSQL session read so far (not yet flushed to the statistics, so only
 * a difference within one transaction means anything): index entries read through any of its
 * indexes, rows of sequential scans, rows fetched by bitmap scans.
 */
const READS = `SELECT pg_stat_get_xact_tuples_returned('jobs'::regclass) + pg_stat_get_xact_tuples_fetched('jobs'::regclass)
  + (SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) FROM pg_index WHERE indrelid = 'jobs'::regclass) AS n`;
const anyRoom: GroupRoom = () => true;

export function describeJobClaims(backend: BackendName, { make }: ClaimBackend): void {
  describe(`job claims on ${backend}`, () => {
    const store = useStore(backend);
    let clock: ManualClock;
    let queue: ClaimingQueue;
    /** Rows of `jobs` the last claim's transaction read (PostgreSQL only: its per-transaction counters). */
    let lastReads: number | undefined;

    beforeAll(() => {
      if (store.main.backend === "postgres") {
        const pg = store.main.pg;
        const counted: Pg = {
          ...pg,
          tx: (fn, options) =>
            pg.tx(async (c) => {
              const reads = async () => Number((await c.query<{ n: string }>(READS)).rows[0].n);
              const before = await reads();
              const result = await fn(c);
              lastReads = (await reads()) - before;
              return result;
            }, options),
        };
        make = ((original) => (c: Connection, cl: Clock) => original(c.backend === "postgres" ? { backend: "postgres", pg: counted, store: storeOnPostgres(counted) } : c, cl))(make);
      }
    });

    beforeEach(async () => {
      await sql(store.main, "DELETE FROM jobs");
      // The rows deleted above would still be in PostgreSQL's indexes, and read, until a vacuum.
      if (store.main.backend === "postgres") await store.main.pg.query("VACUUM jobs");
      clock = manualClock();
      queue = make(store.main, clock);
      lastReads = undefined;
    });

    /** Inserts jobs in the given order (ids ascending); answers their ids. */
    async function insert(rows: Row[], c: Connection = store.main): Promise<number[]> {
      if (c.backend === "postgres") {
        const r = await c.pg.query<{ id: number }>(
          `INSERT INTO jobs (kind, payload, run_at, group_key, created_at)
           SELECT 'x', '{}', t.run_at, t.group_key, 0 FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY t(run_at, group_key, n) ORDER BY t.n
           RETURNING id`,
          [rows.map((r) => r.runAt), rows.map((r) => r.group)],
        );
        // The statistics autovacuum keeps in service: planned on an empty table's, the claim's
        // ORDER BY run_at LIMIT would be a sort of the whole table.
        await c.pg.query("ANALYZE jobs");
        return r.map((x) => x.id).sort((a, b) => a - b);
      }
      const db = c.db;
      const add = db.prepare("INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES ('x', '{}', ?, ?, 0) RETURNING id");
      db.exec("BEGIN");
      try {
        const ids = rows.map((r) => (add.get(r.runAt, r.group) as { id: number }).id);
        db.exec("COMMIT");
        return ids;
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    }

    const claim = async (limit: number, groupRoom: GroupRoom, full: string[] = [], only?: string[], q = queue) => await q.claim(limit, LEASE, groupRoom, full, only);
    const backlog = (group: string, n: number, runAt: number): Row[] => Array.from({ length: n }, () => ({ runAt, group }));

    it("a refill of group B behind 5,000 due jobs of group A gets B's jobs in (run_at, id) order and none of A's", async () => {
      const now = clock.now();
      await insert(backlog("A", 5_000, now - 10_000));
      // B's jobs enqueued out of run_at order, two with the same run_at (then by id).
      const [b1, b2, b3, b4] = await insert([
        { runAt: now - 5, group: "B" },
        { runAt: now - 9, group: "B" },
        { runAt: now - 5, group: "B" },
        { runAt: now + 1, group: "B" }, // not due
      ]);
      const got = await claim(10, anyRoom, [], ["B"]);
      expect(got.map((j) => j.id)).toEqual([b2, b1, b3]);
      expect(got.every((j) => j.group === "B" && j.attempts === 1)).toBe(true);
      if (lastReads !== undefined) expect(lastReads).toBeLessThan(50);
      // Leased now: a second refill finds nothing more of B, and still reads no A.
      expect(await claim(10, anyRoom, [], ["B"])).toEqual([]);
      clock.advance(1);
      expect((await claim(10, anyRoom, [], ["B"])).map((j) => j.id)).toEqual([b4]);
      if (lastReads !== undefined) expect(lastReads).toBeLessThan(50);
    });

    it("a refill reads its groups through their own index range, never the run_at walk over every group", async () => {
      if (store.main.backend !== "sqlite") return; // PostgreSQL counts the rows read (above)
      // A connection of its own, so every statement its claims prepare is seen here.
      const c = await store.connect();
      if (c.backend !== "sqlite") return;
      const seen = new Set<string>();
      const prepare = c.db.prepare.bind(c.db);
      c.db.prepare = ((text: string) => (seen.add(text), prepare(text))) as DatabaseSync["prepare"];
      const q = make(c, clock);
      await insert([...backlog("A", 200, clock.now() - 10), ...backlog("B", 3, clock.now())]);
      expect(await claim(4, anyRoom, [], ["B", "C"], q)).toHaveLength(3);
      const reads = [...seen].filter((s) => /^\s*(SELECT|WITH)/i.test(s) && /\bjobs\b/.test(s));
      expect(reads.length).toBeGreaterThan(0);
      for (const text of reads) {
        const plan = (c.db.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map((p) => p.detail);
        const ofJobs = plan.filter((d) => /\bjobs\b/.test(d) && !/^(CORRELATED|LIST|SCALAR)/.test(d));
        expect(ofJobs.length, plan.join(" | ")).toBeGreaterThan(0);
        for (const d of ofJobs) expect(d, plan.join(" | ")).toMatch(/USING (COVERING )?INDEX jobs_group_due \(group_key=\?|USING INTEGER PRIMARY KEY/);
      }
    });

    it("a claim finds the jobs behind 5,000 due jobs of a full group, in order, without reading them", async () => {
      const now = clock.now();
      await insert(backlog("A", 5_000, now - 10_000));
      const [b1, n1, b2, c1] = await insert([
        { runAt: now - 3, group: "B" },
        { runAt: now - 2, group: null },
        { runAt: now - 4, group: "B" },
        { runAt: now - 1, group: "C" },
      ]);
      const got = await claim(8, anyRoom, ["A"]);
      expect(got.map((j) => j.id)).toEqual([b2, b1, n1, c1]);
      if (lastReads !== undefined) expect(lastReads).toBeLessThan(8 * WINDOW_FACTOR + 60);
    });

    it("a group that reaches its room in a claim does not hide the groups behind its backlog", async () => {
      const now = clock.now();
      const a = await insert(backlog("A", 5_000, now - 10_000));
      const [b1, b2] = await insert([
        { runAt: now - 3, group: "B" },
        { runAt: now - 2, group: "B" },
      ]);
      const refused = new Set<string | null>();
      const room: GroupRoom = (g, taken) => {
        const ok = g !== "A" || taken < 2;
        if (!ok) refused.add(g);
        return ok;
      };
      const got = await claim(8, room, []);
      expect(got.map((j) => j.id)).toEqual([a[0], a[1], b1, b2]);
      // The worker learns that A left jobs behind (it refills A later), and B did not.
      expect([...refused]).toEqual(["A"]);
      if (lastReads !== undefined) expect(lastReads).toBeLessThan(8 * WINDOW_FACTOR + 60);
    });

    it("a claim stops reading one group's backlog once it has passed over as many rows as it wants", async () => {
      // The webhook benchmark's shape: every due job for one receiver, which takes 4 more.
      const a = await insert(backlog("A", 2_000, clock.now() - 10));
      const got = await claim(32, (g, n) => n < 4, []);
      expect(got.map((j) => j.id)).toEqual(a.slice(0, 4));
      // A window of 2 x 32 rows (4 taken, 32 passed over), then the group keys, the ungrouped jobs
      // and the lease: not the 4 x 32 rows of the walk before, nor the backlog.
      if (lastReads !== undefined) expect(lastReads).toBeLessThan(32 * WINDOW_FACTOR + 20);
    });

    it(`with more than ${MAX_MERGED_GROUPS} groups a claim walks on past a full group's backlog`, async () => {
      const now = clock.now();
      await insert(backlog("A", 100, now - 10_000));
      const others = await insert(Array.from({ length: MAX_MERGED_GROUPS + 1 }, (_, i) => ({ runAt: now - 5_000 + i, group: `g${i}` })));
      const got = await claim(5, anyRoom, ["A"]);
      expect(got.map((j) => j.id)).toEqual(others.slice(0, 5));
    });

    it("takes what a plain walk over every due job takes: queue order, rooms, full groups, leases, refills", async () => {
      // Enough groups that the claim also goes by rounds of group heads (claim-order.ts).
      const OTHERS = ["b", "c", "d", "e", "f", "g", "h"];
      // Group a is most of the queue and mostly in front of it (a backlog that outgrows the
      // claim's window), the others few and later, some not due yet.
      const row = fc.oneof(
        { arbitrary: fc.record({ group: fc.constant<string | null>("a"), dt: fc.integer({ min: -12, max: -2 }) }), weight: 6 },
        { arbitrary: fc.record({ group: fc.constantFrom<string | null>(...OTHERS, null), dt: fc.integer({ min: -6, max: 2 }) }), weight: 4 },
      );
      const room = fc.dictionary(fc.constantFrom("a", ...OTHERS), fc.nat(4));
      await fc.assert(
        fc.asyncProperty(
          fc.array(row, { maxLength: 60, size: "max" }),
          fc.nat(8),
          fc.integer({ min: 1, max: 8 }),
          room,
          fc.subarray(["a", ...OTHERS]),
          fc.option(fc.subarray(["a", "b", "c", "e", "x"], { minLength: 1 }), { nil: undefined }),
          async (rows, firstLimit, limit, rooms, full, only) => {
            await sql(store.main, "DELETE FROM jobs");
            const now = clock.now();
            const ids = await insert(rows.map((r) => ({ runAt: now + r.dt, group: r.group })));
            const all = rows.map((r, i) => ({ id: ids[i], runAt: now + r.dt, group: r.group as string | null }));
            // A first claim leases some jobs; the second must pass over them.
            const leased = new Set((await claim(firstLimit, anyRoom)).map((j) => j.id));
            const cap = (g: string | null) => (g === null ? Infinity : (rooms[g] ?? 4));
            const expected: number[] = [];
            const taken = new Map<string | null, number>();
            const dropped = new Set<string | null>(full);
            for (const j of all.filter((j) => j.runAt <= now && !leased.has(j.id)).sort((x, y) => x.runAt - y.runAt || x.id - y.id)) {
              if (expected.length >= limit) break;
              if (only && (j.group === null || !only.includes(j.group))) continue;
              if (dropped.has(j.group)) continue;
              const n = taken.get(j.group) ?? 0;
              if (n >= cap(j.group)) {
                dropped.add(j.group);
                continue;
              }
              taken.set(j.group, n + 1);
              expected.push(j.id);
            }
            const got = await claim(limit, (g, n) => n < cap(g), full, only);
            expect(got.map((j) => j.id)).toEqual(expected);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
}
