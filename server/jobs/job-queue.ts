// The one durable queue of the server: webhook deliveries, the mail relay, scheduled sends,
// certificate orders and bot-update forwarding are all jobs of one table, run by one worker
// (worker.ts), written once for SQLite and PostgreSQL (db/sql.ts). Enqueueing runs on the
// caller's transaction, so a state change and the work it causes commit together or not at all
// (an outbox); the commit notifies JOBS_CHANNEL, which wakes the worker (on PostgreSQL every
// instance's). Claims take due rows with the dialect's SKIP LOCKED (SQLite has one writer), so two
// claimers never get one job; who holds a lease, and when it is void, is db/leases.ts's rule.
import { leaseRule, type LeaseRule } from "../db/leases.ts";
import type { Sql, Store } from "../db/sql.ts";
import { planClaim, runPlan, type ClaimCandidate, type ClaimRead } from "./claim-order.ts";
import type { Clock } from "./clock.ts";
import type { EnqueueOptions, Job, JobOutcome, WorkerQueue } from "./job.ts";

export type { EnqueueOptions, Job } from "./job.ts";

/** The channel of enqueued jobs: wakes the workers (of every instance, on PostgreSQL). */
export const JOBS_CHANNEL = "jobs_enqueued";

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  run_at: number;
  attempts: number;
  group_key: string | null;
}

const toJob = (r: JobRow): Job => ({ id: r.id, kind: r.kind, payload: JSON.parse(r.payload), runAt: r.run_at, attempts: r.attempts, group: r.group_key });

export class JobQueue implements WorkerQueue {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly lease: LeaseRule;
  /** Due and not leased: `?` now, twice. */
  private readonly due: string;

  constructor(store: Store, clock: Clock) {
    this.store = store;
    this.clock = clock;
    this.lease = leaseRule(store);
    this.due = `run_at <= ? AND ${this.lease.void}`;
  }

  /** Adds a job on the caller's transaction `tx`; the workers wake once it commits. */
  async enqueue(tx: Sql, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number> {
    const now = this.clock.now();
    const row = await tx.get<{ id: number }>("INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
      [kind, JSON.stringify(payload), options.runAt ?? now, options.group ?? null, now]);
    // Delivered after the commit (on PostgreSQL it rides on the COMMIT's round trip).
    await tx.notify(JOBS_CHANNEL);
    return row!.id;
  }

  /** Removes jobs of a kind whose payload matches, on `tx` (e.g. a deleted subscription's deliveries); `jsonPath` as `$.webhookId`. */
  async cancelWhere(tx: Sql, kind: string, jsonPath: string, value: string | number): Promise<number> {
    return (await tx.run(`DELETE FROM jobs WHERE kind = ? AND ${tx.dialect.jsonText("payload", jsonPath)} = ?`, [kind, value])).changes;
  }

  /** Calls listener after each commit that enqueued jobs (on any instance, on PostgreSQL). */
  onEnqueue(listener: () => void): Promise<() => void> {
    return this.store.listen(JOBS_CHANNEL, () => listener());
  }

  /**
   * Claims up to `limit` due jobs, skipping groups that are full, and leases them until
   * now + leaseMs, in one transaction: two claimers never get one job (SQLite's single writer,
   * PostgreSQL's SKIP LOCKED: rows another instance is claiming right now are skipped, not waited
   * for). `fullGroups` are left out, and so is every group once it can take no more, without
   * reading its backlog (claim-order.ts); `onlyGroups`, when given, are the only groups looked at
   * (the worker refilling the jobs it holds for a busy group), each read through its own index range.
   */
  claim(limit: number, leaseMs: number, groupRoom: (group: string | null, taken: number) => boolean, fullGroups: string[] = [], onlyGroups?: string[]): Promise<Job[]> {
    const now = this.clock.now();
    return this.store.transaction(async (tx) => {
      // Candidates are read without their payload (only the claimed ones' is read, by the UPDATE):
      // most candidates of a busy group are passed over.
      const chosen = await runPlan(planClaim(limit, groupRoom, fullGroups, onlyGroups), (r) => this.readForClaim(tx, r, now));
      if (chosen.length === 0) return [];
      // The plan reads without locks (but the window); the lease takes those of its rows no other
      // claimer is taking at this moment and whose lease is still void.
      const claimed = await tx.all<JobRow>(
        `UPDATE jobs SET ${this.lease.take}, attempts = attempts + 1
         WHERE id IN (SELECT id FROM jobs WHERE ${tx.dialect.inIntegers("id", "?")} AND ${this.due} ${tx.dialect.skipLocked})
         RETURNING id, kind, payload, run_at, attempts, group_key`,
        [now + leaseMs, JSON.stringify(chosen.map((j) => j.id)), now, now],
      );
      return claimed.sort((a, b) => a.run_at - b.run_at || a.id - b.id).map(toJob);
    }, { relaxed: true });
  }

  /** One read of a claim's plan (claim-order.ts), on the claim's transaction. */
  private async readForClaim(tx: Sql, r: ClaimRead, now: number): Promise<ClaimCandidate[] | string[]> {
    const d = tx.dialect;
    const due = this.due;
    switch (r.read) {
      case "window":
        // Locked as read on PostgreSQL, so two instances' windows take different rows.
        return tx.all<ClaimCandidate>(`SELECT id, group_key, run_at FROM jobs WHERE ${due} ORDER BY run_at, id LIMIT ? ${d.skipLocked}`, [now, now, r.limit]);
      case "groups":
        // A skip scan of jobs_group_due: one seek per group, not one step per job.
        return (await tx.all<{ key: string }>(
          `WITH RECURSIVE g(key, n) AS (
             SELECT (SELECT group_key FROM jobs WHERE group_key IS NOT NULL ORDER BY group_key LIMIT 1), 1
             UNION ALL
             SELECT (SELECT group_key FROM jobs WHERE group_key > g.key ORDER BY group_key LIMIT 1), n + 1 FROM g WHERE g.key IS NOT NULL AND n < ?
           ) SELECT key FROM g WHERE key IS NOT NULL`,
          [r.limit],
        )).map((g) => g.key);
      case "rows": {
        // Each group's range of jobs_group_due, read in order up to its LIMIT; the ungrouped jobs
        // (NULL, which `=` cannot match) are one more range, ordered by the whole index key since
        // PostgreSQL's planner takes `IS NULL` for no equality and would sort every due ungrouped job.
        const keys = r.groups.filter((g): g is string => g !== null);
        const range = `${due} AND (run_at, id) > (?, ?) AND (run_at, id) <= (?, ?)`;
        const bounds = [now, now, r.after[0], r.after[1], r.upTo[0], r.upTo[1], r.perGroup];
        return tx.all<ClaimCandidate>(
          `SELECT j.id, j.group_key, j.run_at FROM ${d.eachKey("?", "jobs", (key, columns) =>
            `SELECT ${columns} FROM jobs ${d.indexedBy("jobs_group_due")} WHERE group_key = ${key} AND ${range} ORDER BY run_at, id LIMIT ?`)}
           UNION ALL
           SELECT id, group_key, run_at FROM (SELECT id, group_key, run_at FROM jobs ${d.indexedBy("jobs_group_due")}
             WHERE ? AND group_key IS NULL AND ${range} ORDER BY group_key, run_at, id LIMIT ?) n`,
          [JSON.stringify(keys), ...bounds, keys.length < r.groups.length, ...bounds],
        );
      }
      case "rest":
        return tx.all<ClaimCandidate>(
          `SELECT id, group_key, run_at FROM jobs
           WHERE ${due} AND (run_at, id) > (?, ?) AND (group_key IS NULL OR group_key NOT IN (SELECT value FROM ${d.jsonArray("?")}))
           ORDER BY run_at, id LIMIT ?`,
          [now, now, r.after[0], r.after[1], JSON.stringify(r.skip), r.limit],
        );
    }
  }

  /**
   * Records the outcomes of finished jobs in one bookkeeping commit, each in a savepoint of its
   * own with its `write` (one failing write does not take the others with it); answers the ids
   * whose outcome could not be recorded (their lease runs out and they run again; the handler sees
   * what was recorded).
   *
   * The queue's own commits (claims, outcomes) are relaxed (db/sql.ts): they do not wait for the
   * disk. In WAL mode such a commit survives kill -9 like any other, and what a power loss (or a
   * crash of the PostgreSQL server) could take only makes at-least-once work run again, never
   * loses it. Waiting for the disk here was most of a delivery's cost (server/README.md).
   */
  record(batch: { job: Job; outcome: JobOutcome }[]): Promise<number[]> {
    return this.store.transaction(async (tx) => {
      const failed: number[] = [];
      for (const { job, outcome } of batch) {
        try {
          await tx.transaction(async (sp) => {
            if (outcome.write) await outcome.write(sp);
            if ("done" in outcome) await sp.run("DELETE FROM jobs WHERE id = ?", [job.id]);
            else await sp.run(`UPDATE jobs SET run_at = ?, ${this.lease.give}, last_error = ? WHERE id = ?`, [outcome.retryAt, outcome.error ?? null, job.id]);
          });
        } catch {
          failed.push(job.id);
        }
      }
      return failed;
    }, { relaxed: true });
  }

  /** Gives back the leases of claimed jobs the worker never started; their attempt is not counted. */
  async release(ids: number[]): Promise<void> {
    await this.store.transaction((tx) => tx.run(
      `UPDATE jobs SET ${this.lease.give}, attempts = attempts - 1 WHERE ${tx.dialect.inIntegers("id", "?")} AND ${this.lease.mine}`,
      [JSON.stringify(ids)],
    ), { relaxed: true });
  }

  /**
   * Where one server process owns the store (SQLite), every lease at start is stale (its holder
   * died): released so interrupted work resumes at once instead of after the lease. Elsewhere a
   * dead holder's leases are void already (db/leases.ts), and another instance's are not stale.
   */
  async releaseAllLeases(): Promise<number> {
    if (!this.lease.ownedAlone) return 0;
    return (await this.store.run(`UPDATE jobs SET ${this.lease.give} WHERE lease_until IS NOT NULL`)).changes;
  }

  /** Epoch ms of the earliest job not leased, or undefined when none waits. */
  async nextDue(): Promise<number | undefined> {
    const row = await this.store.get<{ t: number | null }>("SELECT MIN(run_at) AS t FROM jobs WHERE lease_until IS NULL");
    return row?.t ?? undefined;
  }

  async count(kind?: string): Promise<number> {
    const row = kind
      ? await this.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = ?", [kind])
      : await this.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM jobs");
    return Number(row!.n);
  }
}
