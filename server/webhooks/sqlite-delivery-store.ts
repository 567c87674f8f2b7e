// The delivery engine's SQL on the embedded store. The job methods run synchronously inside the
// worker's transaction on this same connection (their `tx` is it); recordRedelivery opens its own.
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";
import type { Tx } from "../db/tx.ts";
import { prepare } from "../db/statements.ts";
import { DELIVER_JOB } from "../events/event-outbox.ts";
import type { JobQueue } from "../jobs/job-queue.ts";
import type { AttemptResult, DeliveryStore, PendingAttempt } from "./delivery-store.ts";
import { toDelivery, toHook, type DeliveryRow, type HookRow } from "./sqlite-webhook-repository.ts";

/** Decision W5: a subscription whose every attempt has failed for this long is deactivated. */
export const DEACTIVATE_AFTER_MS = 5 * 24 * 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();

export class SqliteDeliveryStore implements DeliveryStore {
  private readonly db: DatabaseSync;
  private readonly jobs: JobQueue;

  constructor(db: DatabaseSync, jobs: JobQueue) {
    this.db = db;
    this.jobs = jobs;
  }

  async load(deliveryId: number): Promise<PendingAttempt | undefined> {
    // One statement for the delivery and its subscription (an inner join: no subscription, no
    // attempt), read fresh on every attempt so a deleted, deactivated or changed one is seen.
    const r = prepare(this.db,
      `SELECT d.id, d.webhook_id, d.event, d.status, d.http_code, d.attempts, d.payload, d.created_at, d.next_attempt_at, d.schedule_step,
              w.project_id AS w_project_id, w.url AS w_url, w.events AS w_events, w.secret_enc AS w_secret_enc, w.active AS w_active, w.created_at AS w_created_at
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`,
    ).get(deliveryId) as (DeliveryRow & { schedule_step: number } & Record<`w_${"project_id" | "url" | "events" | "secret_enc" | "created_at"}`, string> & { w_active: number }) | undefined;
    if (!r) return undefined;
    const hook = { id: r.webhook_id, project_id: r.w_project_id, url: r.w_url, events: r.w_events, secret_enc: r.w_secret_enc, active: r.w_active, created_at: r.w_created_at } as HookRow;
    return { delivery: toDelivery(r), scheduleStep: r.schedule_step, hook: toHook(hook) };
  }

  recordDelivered(_tx: Tx, deliveryId: number, webhookId: string, result: AttemptResult): void {
    prepare(this.db, "UPDATE webhook_deliveries SET status = 'delivered', http_code = ?, attempts = attempts + 1, next_attempt_at = NULL, last_error = NULL WHERE id = ?")
      .run(result.httpCode, deliveryId);
    // Only a subscription in a failing streak is written: an UPDATE that matches no row dirties no page.
    prepare(this.db, "UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL").run(webhookId);
  }

  recordFailed(_tx: Tx, deliveryId: number, webhookId: string, result: AttemptResult, retryAt: number | null): boolean {
    // Only a pending delivery moves on in the schedule: one given up meanwhile (its subscription
    // deactivated by a parallel attempt) or delivered by a redelivery keeps its status. SQLite
    // evaluates every SET expression on the row as it was.
    const status = retryAt === null ? "failed" : "pending";
    prepare(this.db,
      `UPDATE webhook_deliveries SET http_code = ?, attempts = attempts + 1, last_error = ?, schedule_step = schedule_step + ?,
         status = CASE WHEN status = 'pending' THEN ? ELSE status END,
         next_attempt_at = CASE WHEN status = 'pending' THEN ? ELSE NULL END
       WHERE id = ?`,
    ).run(result.httpCode, result.error ?? null, retryAt === null ? 0 : 1, status, retryAt === null ? null : iso(retryAt), deliveryId);
    return this.failedAttempt(webhookId, result.at);
  }

  abandon(_tx: Tx, deliveryId: number): void {
    prepare(this.db, "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ? AND status = 'pending'").run(deliveryId);
  }

  async recordRedelivery(deliveryId: number, webhookId: string, result: AttemptResult, delivered: boolean): Promise<void> {
    transaction(this.db, () => {
      if (delivered) {
        prepare(this.db, "UPDATE webhook_deliveries SET status = 'delivered', http_code = ?, attempts = attempts + 1, next_attempt_at = NULL, last_error = NULL WHERE id = ?")
          .run(result.httpCode, deliveryId);
        this.jobs.cancelWhere(DELIVER_JOB, "$.deliveryId", deliveryId);
        // A receiver that answers again earns its subscription back (decision W5).
        prepare(this.db, "UPDATE webhooks SET failing_since = NULL, active = 1 WHERE id = ?").run(webhookId);
      } else {
        prepare(this.db, "UPDATE webhook_deliveries SET http_code = ?, attempts = attempts + 1, last_error = ? WHERE id = ?")
          .run(result.httpCode, result.error ?? null, deliveryId);
        this.failedAttempt(webhookId, result.at);
      }
    });
  }

  /** Starts or extends the subscription's failing streak; deactivates it after DEACTIVATE_AFTER_MS. */
  private failedAttempt(webhookId: string, at: number): boolean {
    const row = prepare(this.db, "UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since, active")
      .get(at, webhookId) as { failing_since: number; active: number } | undefined;
    if (!row || row.active !== 1 || at - row.failing_since < DEACTIVATE_AFTER_MS) return false;
    prepare(this.db, "UPDATE webhooks SET active = 0 WHERE id = ?").run(webhookId);
    // Its waiting deliveries are given up now rather than attempted against a dead receiver.
    this.jobs.cancelWhere(DELIVER_JOB, "$.webhookId", webhookId);
    prepare(this.db, "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'").run(webhookId);
    return true;
  }
}
