// The storage of the delivery engine, written once for both stores (db/sql.ts). The writes of a
// scheduled attempt join the transaction in which the job worker records the job's own
// rescheduling or removal (`tx`); a redelivery runs in a transaction of its own. Several
// instances may deliver at once (PostgreSQL): the queue hands each job to one of them, and what two
// attempts of one subscription may still race on is settled by row locks, always taken in one
// order, the subscription's row before its deliveries' (deactivation writes every pending delivery
// of it; two attempts locking in opposite orders would deadlock). The failing streak is one
// UPDATE ... RETURNING on the subscription's row, so exactly one attempt sees it pass five days.
import type { Sql, Store } from "../db/sql.ts";
import { DELIVER_JOB } from "../events/event-outbox.ts";
import type { JobQueue } from "../jobs/job-queue.ts";
import { bool } from "../db/sql.ts";
import { toDelivery, toHook, type DeliveryRecord, type DeliveryRow, type WebhookRecord } from "./webhook-repository.ts";

/** Decision W5: a subscription whose every attempt has failed for this long is deactivated. */
export const DEACTIVATE_AFTER_MS = 5 * 24 * 3_600_000;

export interface PendingAttempt {
  delivery: DeliveryRecord;
  /** Retries already scheduled for this delivery (0 before the first retry), per decision W2. */
  scheduleStep: number;
  hook: WebhookRecord;
}

export interface AttemptResult {
  httpCode: number;
  /** Why the attempt failed, kept for the operator; undefined when it was delivered. */
  error?: string;
  /** Epoch ms the attempt finished. */
  at: number;
}

export interface DeliveryStore {
  /** The delivery with its subscription; undefined when the subscription (and so the delivery) is gone. */
  load(deliveryId: number): Promise<PendingAttempt | undefined>;
  /** A scheduled attempt got a 2xx: delivered, the subscription's failing streak ends. */
  recordDelivered(tx: Sql, deliveryId: number, webhookId: string, result: AttemptResult): Promise<void>;
  /**
   * A scheduled attempt failed: pending again until `retryAt`, or `failed` when null. Counts toward
   * the subscription's deactivation (decision W5); answers true when this attempt deactivated it.
   */
  recordFailed(tx: Sql, deliveryId: number, webhookId: string, result: AttemptResult, retryAt: number | null): Promise<boolean>;
  /** A delivery whose subscription was deactivated while it waited: failed without an attempt. */
  abandon(tx: Sql, deliveryId: number): Promise<void>;
  /**
   * A redelivery (one extra attempt, outside the schedule), in a transaction of its own: adds the
   * attempt, keeps a pending delivery's schedule unless it was delivered now (then its job goes).
   */
  recordRedelivery(deliveryId: number, webhookId: string, result: AttemptResult, delivered: boolean): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

type LoadRow = DeliveryRow & { schedule_step: number } & Record<`w_${"project_id" | "url" | "events" | "secret_enc" | "created_at"}`, string> & { w_active: unknown };

export class SqlDeliveryStore implements DeliveryStore {
  private readonly store: Store;
  private readonly jobs: JobQueue;

  constructor(store: Store, jobs: JobQueue) {
    this.store = store;
    this.jobs = jobs;
  }

  async load(deliveryId: number): Promise<PendingAttempt | undefined> {
    // One statement for the delivery and its subscription (an inner join: no subscription, no
    // attempt), read fresh on every attempt so a deleted, deactivated or changed one is seen.
    const r = await this.store.get<LoadRow>(
      `SELECT d.id, d.webhook_id, d.event, d.status, d.http_code, d.attempts, d.payload, d.created_at, d.next_attempt_at, d.event_id, d.test, d.schedule_step,
              w.project_id AS w_project_id, w.url AS w_url, w.events AS w_events, w.secret_enc AS w_secret_enc, w.active AS w_active, w.created_at AS w_created_at
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`,
      [deliveryId],
    );
    if (!r) return undefined;
    const hook = toHook({ id: r.webhook_id, project_id: r.w_project_id, url: r.w_url, events: r.w_events, secret_enc: r.w_secret_enc, active: bool(r.w_active), created_at: r.w_created_at });
    return { delivery: toDelivery(r), scheduleStep: r.schedule_step, hook };
  }

  async recordDelivered(tx: Sql, deliveryId: number, webhookId: string, result: AttemptResult): Promise<void> {
    // Only a subscription in a failing streak is written: an UPDATE that matches no row dirties no page.
    await tx.run("UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL", [webhookId]);
    await tx.run("UPDATE webhook_deliveries SET status = 'delivered', http_code = ?, attempts = attempts + 1, next_attempt_at = NULL, last_error = NULL WHERE id = ?",
      [result.httpCode, deliveryId]);
  }

  async recordFailed(tx: Sql, deliveryId: number, webhookId: string, result: AttemptResult, retryAt: number | null): Promise<boolean> {
    const deactivated = await this.failedAttempt(tx, webhookId, result.at);
    // Only a pending delivery moves on in the schedule: one given up meanwhile (its subscription
    // deactivated, by this attempt just now or a parallel one) or delivered by a redelivery keeps
    // its status. Both stores evaluate every SET expression on the row as it was.
    const status = retryAt === null ? "failed" : "pending";
    await tx.run(
      `UPDATE webhook_deliveries SET http_code = ?, attempts = attempts + 1, last_error = ?, schedule_step = schedule_step + ?,
         status = CASE WHEN status = 'pending' THEN ? ELSE status END,
         next_attempt_at = CASE WHEN status = 'pending' THEN ? ELSE NULL END
       WHERE id = ?`,
      [result.httpCode, result.error ?? null, retryAt === null ? 0 : 1, status, retryAt === null ? null : iso(retryAt), deliveryId],
    );
    return deactivated;
  }

  async abandon(tx: Sql, deliveryId: number): Promise<void> {
    await tx.run("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ? AND status = 'pending'", [deliveryId]);
  }

  async recordRedelivery(deliveryId: number, webhookId: string, result: AttemptResult, delivered: boolean): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (delivered) {
        // A receiver that answers again earns its subscription back (decision W5).
        await tx.run("UPDATE webhooks SET failing_since = NULL, active = ? WHERE id = ?", [true, webhookId]);
        await tx.run("UPDATE webhook_deliveries SET status = 'delivered', http_code = ?, attempts = attempts + 1, next_attempt_at = NULL, last_error = NULL WHERE id = ?",
          [result.httpCode, deliveryId]);
        await this.jobs.cancelWhere(tx, DELIVER_JOB, "$.deliveryId", deliveryId);
      } else {
        await this.failedAttempt(tx, webhookId, result.at);
        await tx.run("UPDATE webhook_deliveries SET http_code = ?, attempts = attempts + 1, last_error = ? WHERE id = ?", [result.httpCode, result.error ?? null, deliveryId]);
      }
    });
  }

  /** Starts or extends the subscription's failing streak; deactivates it after DEACTIVATE_AFTER_MS. */
  private async failedAttempt(tx: Sql, webhookId: string, at: number): Promise<boolean> {
    // The UPDATE locks the subscription's row until commit: a parallel attempt on another
    // instance waits here and then reads `active` as this one left it.
    const row = await tx.get<{ failing_since: number; active: unknown }>("UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since, active", [at, webhookId]);
    if (!row || !bool(row.active) || at - row.failing_since < DEACTIVATE_AFTER_MS) return false;
    await tx.run("UPDATE webhooks SET active = ? WHERE id = ?", [false, webhookId]);
    // Its waiting deliveries are given up now rather than attempted against a dead receiver.
    await this.jobs.cancelWhere(tx, DELIVER_JOB, "$.webhookId", webhookId);
    await tx.run("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'", [webhookId]);
    return true;
  }
}
