// The job queue on PostgreSQL (decision P2): the same table and semantics as job-queue.ts, for
// several instances at once. Enqueueing runs on the caller's transaction client, so the state
// change and its work commit together (an outbox); the commit notifies JOBS_CHANNEL and wakes
// every instance's worker. Claims take due rows with FOR UPDATE SKIP LOCKED, so two instances
// claiming at once never get one job. A lease names its holder; it is void when it runs out or
// when the holder has no session left (killed), so nothing waits for a dead instance's leases.
import type pg from "pg";
import { type Pg, type Queryable } from "../db/postgres/pg.ts";
import { planClaim, runPlan, type ClaimCandidate, type ClaimRead } from "./claim-order.ts";
import type { Clock } from "./clock.ts";
import type { EnqueueOptions, Job } from "./job-queue.ts";
import type { JobOutcome } from "./worker.ts";

/** NOTIFY channel of enqueued jobs: wakes the workers of every instance. */
export const JOBS_CHANNEL = "jobs_enqueued";

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  run_at: number;
  attempts: number;
  group_key: string | null;
}

/**
 * Due and not leased, for the claims' reads ($1 is now): a lease is void when it ran out or its
 * holder has no session left (killed).
 */
const DUE = `run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1
  OR leased_by NOT IN (SELECT application_name FROM pg_stat_activity WHERE application_name IS NOT NULL))`;

/**
 * A statement named, so each pooled session parses and plans it once: a claim runs a few of them
 * in its transaction, and their planning (the lease condition's subquery, the lateral join) cost
 * as much as their execution.
 */
const named = async <R extends pg.QueryResultRow>(c: Queryable, name: string, text: string, values: unknown[]): Promise<R[]> => (await c.query<R>({ name, text, values })).rows;

const toJob = (r: JobRow): Job => ({ id: r.id, kind: r.kind, payload: JSON.parse(r.payload), runAt: r.run_at, attempts: r.attempts, group: r.group_key });

/** `$.a.b` (SQLite's JSON path, what callers of cancelWhere pass) as a PostgreSQL path `{a,b}`. */
const jsonPath = (path: string) => `{${path.replace(/^\$\.?/, "").split(".").join(",")}}`;

export class PgJobQueue {
  private readonly db: Pg;
  private readonly clock: Clock;

  constructor(db: Pg, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** Adds a job on the caller's transaction `c`; workers everywhere wake when it commits. */
  async enqueue(c: Queryable, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number> {
    const now = this.clock.now();
    // The NOTIFY rides on the insert's statement, and the statement is named (planned once per
    // pooled session): every accepted send enqueues, and its transaction's round trips and
    // planning are what the send costs on PostgreSQL (server/README.md, Benchmarks).
    const { rows: [row] } = await c.query<{ id: number }>({
      name: "jobs-enqueue",
      text: `WITH job AS (INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id)
        SELECT id, pg_notify($6, '') FROM job`,
      values: [kind, JSON.stringify(payload), options.runAt ?? now, options.group ?? null, now, JOBS_CHANNEL],
    });
    return row.id;
  }

  /** Removes jobs of a kind whose payload matches (`jsonPath` as SQLite writes it: `$.webhookId`). */
  async cancelWhere(c: Queryable, kind: string, path: string, value: string | number): Promise<number> {
    const r = await c.query("DELETE FROM jobs WHERE kind = $1 AND payload::jsonb #>> $2 = $3", [kind, jsonPath(path), String(value)]);
    return r.rowCount ?? 0;
  }

  /** Calls listener after each commit that enqueued jobs, on any instance. */
  async onEnqueue(listener: () => void): Promise<() => void> {
    return this.db.listen(JOBS_CHANNEL, listener);
  }

  /**
   * Claims up to `limit` due jobs, skipping full groups (and, given `onlyGroups`, every other
   * group), and leases them to this instance until now + leaseMs; a group that can take no more
   * is left out without reading its backlog (claim-order.ts). Rows another instance is claiming
   * right now are skipped, not waited for.
   */
  claim(limit: number, leaseMs: number, groupRoom: (group: string | null, taken: number) => boolean, fullGroups: string[] = [], onlyGroups?: string[]): Promise<Job[]> {
    const now = this.clock.now();
    return this.bookkeeping(async (c) => {
      const chosen = await runPlan(planClaim(limit, groupRoom, fullGroups, onlyGroups), (r) => this.readForClaim(c, r, now));
      if (chosen.length === 0) return [];
      // The plan reads without locks (but the window); the lease takes those of its rows no other
      // instance is claiming at this moment (SKIP LOCKED) and whose lease is still void.
      const claimed = await named<JobRow>(c, "jobs-claim-lease",
        `UPDATE jobs SET lease_until = $1, leased_by = $2, attempts = attempts + 1
         WHERE id IN (SELECT id FROM jobs WHERE id = ANY($3) AND ${DUE.replaceAll("$1", "$4")} FOR UPDATE SKIP LOCKED)
         RETURNING id, kind, payload, run_at, attempts, group_key`,
        [now + leaseMs, this.db.instanceName, chosen.map((j) => j.id), now],
      );
      return claimed.sort((a, b) => a.run_at - b.run_at || a.id - b.id).map(toJob);
    });
  }

  /** One read of a claim's plan (claim-order.ts), on the claim's transaction. */
  private async readForClaim(c: pg.PoolClient, r: ClaimRead, now: number): Promise<ClaimCandidate[] | string[]> {
    switch (r.read) {
      case "window":
        // Locked as read, so two instances' windows take different rows.
        return named<ClaimCandidate>(c, "jobs-claim-window", `SELECT id, group_key, run_at FROM jobs WHERE ${DUE} ORDER BY run_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`, [now, r.limit]);
      case "groups": {
        // A skip scan of jobs_group_due: one seek per group, not one step per job.
        const keys = await named<{ key: string }>(c, "jobs-claim-groups",
          `WITH RECURSIVE g(key, n) AS (
             SELECT (SELECT group_key FROM jobs WHERE group_key IS NOT NULL ORDER BY group_key LIMIT 1), 1
             UNION ALL
             SELECT (SELECT group_key FROM jobs WHERE group_key > g.key ORDER BY group_key LIMIT 1), n + 1 FROM g WHERE g.key IS NOT NULL AND n < $1
           ) SELECT key FROM g WHERE key IS NOT NULL`,
          [r.limit],
        );
        return keys.map((k) => k.key);
      }
      case "rows": {
        // Each group's range of jobs_group_due, read in order up to its LIMIT; the ungrouped jobs
        // (NULL, which `=` cannot match) are one more range, ordered by the whole index key since
        // the planner takes `IS NULL` for no equality and would sort every due ungrouped job.
        const keys = r.groups.filter((g): g is string => g !== null);
        return named<ClaimCandidate>(c, "jobs-claim-rows",
          `SELECT j.* FROM unnest($2::text[]) k(key) CROSS JOIN LATERAL (
             SELECT id, group_key, run_at FROM jobs
             WHERE group_key = k.key AND ${DUE} AND (run_at, id) > ($3, $4) AND (run_at, id) <= ($5, $6)
             ORDER BY run_at, id LIMIT $7) j
           UNION ALL
           (SELECT id, group_key, run_at FROM jobs
            WHERE $8 AND group_key IS NULL AND ${DUE} AND (run_at, id) > ($3, $4) AND (run_at, id) <= ($5, $6)
            ORDER BY group_key, run_at, id LIMIT $7)`,
          [now, keys, r.after[0], r.after[1], r.upTo[0], r.upTo[1], r.perGroup, keys.length < r.groups.length],
        );
      }
      case "rest":
        return named<ClaimCandidate>(c, "jobs-claim-rest",
          `SELECT id, group_key, run_at FROM jobs
           WHERE ${DUE} AND (run_at, id) > ($2, $3) AND (group_key IS NULL OR NOT (group_key = ANY($4)))
           ORDER BY run_at, id LIMIT $5`,
          [now, r.after[0], r.after[1], r.skip, r.limit],
        );
    }
  }

  /**
   * Records the outcomes of finished jobs in one transaction, each in a savepoint of its own with
   * its `write` (one failing write does not take the others with it); answers the ids whose
   * outcome could not be recorded (their lease runs out and they run again).
   */
  record(batch: { job: Job; outcome: JobOutcome }[]): Promise<number[]> {
    return this.bookkeeping(async (c) => {
      const failed: number[] = [];
      for (const { job, outcome } of batch) {
        await c.query("SAVEPOINT job_outcome");
        try {
          await outcome.write?.({ kind: "postgres", c });
          if ("done" in outcome) await c.query("DELETE FROM jobs WHERE id = $1", [job.id]);
          else await c.query("UPDATE jobs SET run_at = $1, lease_until = NULL, leased_by = NULL, last_error = $2 WHERE id = $3", [outcome.retryAt, outcome.error ?? null, job.id]);
          await c.query("RELEASE job_outcome");
        } catch {
          await c.query("ROLLBACK TO job_outcome");
          await c.query("RELEASE job_outcome");
          failed.push(job.id);
        }
      }
      return failed;
    });
  }

  /**
   * The queue's own commits (claims, outcomes) do not wait for the disk, like SQLite's
   * synchronous=NORMAL bookkeeping (job-queue.ts): a crash of the database server can only take
   * the last few, which makes those jobs run again, never loses them. An instance killed with
   * kill -9 loses nothing committed either way.
   */
  private bookkeeping<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.db.tx(async (c) => {
      await c.query("SET LOCAL synchronous_commit = off");
      return fn(c);
    });
  }

  /** Gives back the leases of claimed jobs the worker never started; their attempt is not counted. */
  async release(ids: number[]): Promise<void> {
    await this.bookkeeping((c) => c.query("UPDATE jobs SET lease_until = NULL, leased_by = NULL, attempts = attempts - 1 WHERE id = ANY($1) AND leased_by = $2", [ids, this.db.instanceName]));
  }

  /** Epoch ms of the earliest job not leased, or undefined when none waits. */
  async nextDue(): Promise<number | undefined> {
    const [row] = await this.db.query<{ t: number | null }>("SELECT MIN(run_at) AS t FROM jobs WHERE lease_until IS NULL");
    return row.t ?? undefined;
  }

  async count(kind?: string): Promise<number> {
    const [row] = kind
      ? await this.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = $1", [kind])
      : await this.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs");
    return row.n;
  }
}
