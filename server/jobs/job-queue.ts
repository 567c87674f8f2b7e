// The one durable queue of the server: webhook deliveries, the mail relay, scheduled sends,
// certificate orders and bot-update forwarding are all jobs of one table, run by one worker
// (worker.ts). Enqueueing is synchronous SQL so it can join the caller's write transaction: a
// state change and the work it causes commit together or not at all (an outbox).
import type { DatabaseSync } from "node:sqlite";
import { savepoint } from "../db/database.ts";
import { writeOnSqlite } from "../db/tx.ts";
import { prepare } from "../db/statements.ts";
import { planClaim, runPlanSync, type ClaimCandidate, type ClaimRead } from "./claim-order.ts";
import type { Clock } from "./clock.ts";
import type { Job, JobOutcome } from "./job.ts";

// Job lives in job.ts (beside the outcome types), so the worker and the queue need not import each other.
export type { Job } from "./job.ts";

export interface EnqueueOptions {
  /** When the job becomes due (epoch ms); default now. */
  runAt?: number;
  /**
   * Jobs of one group share a concurrency limit (the worker's `perGroup`), so one slow target
   * (a subscriber URL, a recipient MX) cannot take every slot.
   */
  group?: string;
}

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  run_at: number;
  attempts: number;
  group_key: string | null;
}

const toJob = (r: JobRow): Job => ({ id: r.id, kind: r.kind, payload: JSON.parse(r.payload), runAt: r.run_at, attempts: r.attempts, group: r.group_key });

export class JobQueue {
  private readonly db: DatabaseSync;
  private readonly clock: Clock;
  private readonly listeners = new Set<() => void>();

  /** The connection's own setting (FULL), restored after bookkeeping commits. */
  private readonly synchronous: number;

  constructor(db: DatabaseSync, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.synchronous = (db.prepare("PRAGMA synchronous").get() as { synchronous: number }).synchronous;
  }

  /**
   * Adds a job. Call it inside the caller's `transaction(db, ...)` to commit it with the state
   * change that caused it; the worker is woken on the next turn, after that commit.
   */
  enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}): number {
    const now = this.clock.now();
    const row = prepare(this.db, "INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id")
      .get(kind, JSON.stringify(payload), options.runAt ?? now, options.group ?? null, now) as { id: number };
    if (this.listeners.size) setImmediate(() => this.listeners.forEach((l) => l()));
    return row.id;
  }

  /** Removes jobs of a kind whose payload matches (e.g. a deleted subscription's deliveries). */
  cancelWhere(kind: string, jsonPath: string, value: string | number): number {
    return Number(prepare(this.db, "DELETE FROM jobs WHERE kind = ? AND json_extract(payload, ?) = ?").run(kind, jsonPath, value).changes);
  }

  /** Called after each enqueue, once the enqueueing transaction has committed. */
  onEnqueue(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Claims up to `limit` due jobs, skipping groups that are full, and leases them until
   * now + leaseMs. Runs in one IMMEDIATE transaction, so two claimers never get one job.
   * `fullGroups` are left out, and so is every group once it can take no more, without reading
   * its backlog (claim-order.ts); `onlyGroups`, when given, are the only groups looked at (the
   * worker refilling the jobs it holds for a busy group), each read through its own index range.
   */
  claim(limit: number, leaseMs: number, groupRoom: (group: string | null, taken: number) => boolean, fullGroups: string[] = [], onlyGroups?: string[]): Job[] {
    const now = this.clock.now();
    return this.bookkeeping(() => {
      // Candidates are read without their payload (only the claimed ones' is read, by the UPDATE):
      // most candidates of a busy group are passed over.
      const chosen = runPlanSync(planClaim(limit, groupRoom, fullGroups, onlyGroups), (r) => this.readForClaim(r, now));
      const lease = prepare(this.db, "UPDATE jobs SET lease_until = ?, attempts = attempts + 1 WHERE id = ? RETURNING id, kind, payload, run_at, attempts, group_key");
      return chosen.map((c) => toJob(lease.get(now + leaseMs, c.id) as unknown as JobRow));
    });
  }

  /** One read of a claim's plan (claim-order.ts); `due` is the same condition in each. */
  private readForClaim(r: ClaimRead, now: number): Iterable<ClaimCandidate> | string[] {
    const due = "run_at <= ? AND (lease_until IS NULL OR lease_until <= ?)";
    switch (r.read) {
      case "window":
        return prepare(this.db, `SELECT id, group_key, run_at FROM jobs WHERE ${due} ORDER BY run_at, id LIMIT ?`).iterate(now, now, r.limit) as IterableIterator<ClaimCandidate>;
      case "groups":
        // A skip scan of jobs_group_due: one seek per group, not one step per job.
        return (prepare(this.db,
          `WITH RECURSIVE g(key, n) AS (
             SELECT (SELECT group_key FROM jobs WHERE group_key IS NOT NULL ORDER BY group_key LIMIT 1), 1
             UNION ALL
             SELECT (SELECT group_key FROM jobs WHERE group_key > g.key ORDER BY group_key LIMIT 1), n + 1 FROM g WHERE g.key IS NOT NULL AND n < ?
           ) SELECT key FROM g WHERE key IS NOT NULL`,
        ).all(r.limit) as { key: string }[]).map((g) => g.key);
      case "rows":
        // `group_key IS k.value` is an equality for the index (and matches the ungrouped jobs for a
        // JSON null), so each group's range of jobs_group_due is read in order up to its LIMIT.
        return prepare(this.db,
          `SELECT j.id, j.group_key, j.run_at FROM json_each(?) k JOIN jobs j ON j.id IN (
             SELECT id FROM jobs INDEXED BY jobs_group_due
             WHERE group_key IS k.value AND ${due} AND (run_at, id) > (?, ?) AND (run_at, id) <= (?, ?)
             ORDER BY run_at, id LIMIT ?)`,
        ).all(JSON.stringify(r.groups), now, now, r.after[0], r.after[1], r.upTo[0], r.upTo[1], r.perGroup) as unknown as ClaimCandidate[];
      case "rest":
        return prepare(this.db,
          `SELECT id, group_key, run_at FROM jobs WHERE ${due} AND (run_at, id) > (?, ?)
             AND (group_key IS NULL OR group_key NOT IN (SELECT value FROM json_each(?)))
           ORDER BY run_at, id LIMIT ?`,
        ).all(now, now, r.after[0], r.after[1], JSON.stringify(r.skip), r.limit) as unknown as ClaimCandidate[];
    }
  }

  /**
   * Runs fn in an IMMEDIATE transaction committed without waiting for the disk (synchronous =
   * NORMAL, for this commit only). For the queue's own bookkeeping that is enough: in WAL mode a
   * commit survives kill -9 either way (it is in the OS's cache), and what a power loss could take
   * (a lease, a job's outcome) only makes at-least-once work run again, never loses it. The next
   * FULL commit of any write flushes it as well. Waiting for the disk here was most of a
   * delivery's cost (server/README.md, webhook benchmark).
   */
  bookkeeping<T>(fn: () => T): T {
    // Prepared once (statements.ts), not parsed again on every call as exec does: these few
    // statements run around every claim and every batch of outcomes.
    const run = (sql: string) => prepare(this.db, sql).run();
    run("PRAGMA synchronous = NORMAL");
    try {
      run("BEGIN IMMEDIATE");
      try {
        const result = fn();
        run("COMMIT");
        return result;
      } catch (error) {
        run("ROLLBACK");
        throw error;
      }
    } finally {
      run(`PRAGMA synchronous = ${this.synchronous}`);
    }
  }

  /**
   * Records the outcomes of finished jobs in one bookkeeping commit, each in a savepoint of its
   * own with its `write` (one failing write does not take the others with it); answers the ids
   * whose outcome could not be recorded (their lease runs out and they run again; the handler sees
   * what was recorded). pg-job-queue.ts does the same on PostgreSQL.
   */
  record(batch: { job: Job; outcome: JobOutcome }[]): number[] {
    const failed: number[] = [];
    this.bookkeeping(() => {
      for (const { job, outcome } of batch) {
        try {
          savepoint(this.db, "job_outcome", () => {
            if (outcome.write) writeOnSqlite(outcome.write, this.db);
            if ("done" in outcome) this.complete(job.id);
            else this.reschedule(job.id, outcome.retryAt, outcome.error);
          });
        } catch {
          failed.push(job.id);
        }
      }
    });
    return failed;
  }

  /** Deletes a finished job. Call inside the transaction that records the job's result. */
  complete(id: number): void {
    prepare(this.db, "DELETE FROM jobs WHERE id = ?").run(id);
  }

  /** Releases a job to run again at `runAt`. Call inside the transaction that records the attempt. */
  reschedule(id: number, runAt: number, error?: string): void {
    prepare(this.db, "UPDATE jobs SET run_at = ?, lease_until = NULL, last_error = ? WHERE id = ?").run(runAt, error ?? null, id);
  }

  /** Gives back the leases of claimed jobs the worker never started; their attempt is not counted. */
  release(ids: number[]): void {
    this.bookkeeping(() => prepare(this.db, "UPDATE jobs SET lease_until = NULL, attempts = attempts - 1 WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids)));
  }

  /**
   * One server process owns an SQLite file's queue, so at start every lease is stale (its holder
   * died): release them so interrupted work resumes at once instead of after the lease.
   */
  releaseAllLeases(): number {
    return Number(prepare(this.db, "UPDATE jobs SET lease_until = NULL WHERE lease_until IS NOT NULL").run().changes);
  }

  /** Epoch ms of the earliest job not leased, or undefined when none waits. */
  nextDue(): number | undefined {
    const row = prepare(this.db, "SELECT MIN(run_at) AS t FROM jobs WHERE lease_until IS NULL").get() as { t: number | null };
    return row.t ?? undefined;
  }

  count(kind?: string): number {
    const row = kind
      ? prepare(this.db, "SELECT COUNT(*) AS n FROM jobs WHERE kind = ?").get(kind)
      : prepare(this.db, "SELECT COUNT(*) AS n FROM jobs").get();
    return (row as { n: number }).n;
  }
}
