// The delivery engine's storage on PostgreSQL (decision P1): sqlite-delivery-store.ts's SQL, with
// the writes of a job's outcome on the worker's transaction client (`tx`; they commit with the
// job's rescheduling or removal, jobs/pg-job-queue.ts) and a redelivery in a transaction of its
// own. Several instances deliver at once: the queue hands each job to one of them (SKIP LOCKED),
// and what two attempts of one subscription may still race on is settled by row locks: the
// failing streak is one UPDATE ... RETURNING on the subscription's row, so exactly one attempt
// sees the streak pass five days and deactivates it.
import { rows, type Pg, type Queryable } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import { DELIVER_JOB } from "../events/event-outbox.ts";
import type { PgJobQueue } from "../jobs/pg-job-queue.ts";
import type { AttemptResult, DeliveryStore, PendingAttempt } from "./delivery-store.ts";
import { DEACTIVATE_AFTER_MS } from "./sqlite-delivery-store.ts";
import { DELIVERY_COLUMNS, HOOK_COLUMNS, toDelivery, toHook, type PgDeliveryRow, type PgHookRow } from "./pg-webhook-repository.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Failed attempts lock their subscription's row before their delivery's: deactivation then
 * writes every pending delivery of it, and two attempts taking the locks in opposite orders would
 * deadlock (PostgreSQL would break it after a second, and the loser's transaction run again).
 */
async function lockHook(c: Queryable, webhookId: string): Promise<void> {
  await c.query("SELECT 1 FROM webhooks WHERE id = $1 FOR NO KEY UPDATE", [webhookId]);
}

/** The worker's transaction client: a PostgreSQL store joins only PostgreSQL transactions. */
function client(tx: Tx): Queryable {
  if (tx.kind !== "postgres") throw new Error("the PostgreSQL delivery store was handed a SQLite transaction");
  return tx.c;
}

export class PgDeliveryStore implements DeliveryStore {
  private readonly db: Pg;
  private readonly jobs: PgJobQueue;

  constructor(db: Pg, jobs: PgJobQueue) {
    this.db = db;
    this.jobs = jobs;
  }

  /** The delivery with its subscription; undefined when the subscription (and so the delivery) is gone. */
  async load(deliveryId: number): Promise<PendingAttempt | undefined> {
    const [delivery] = await this.db.query<PgDeliveryRow & { schedule_step: number }>(`SELECT ${DELIVERY_COLUMNS}, schedule_step FROM webhook_deliveries WHERE id = $1`, [deliveryId]);
    if (!delivery) return undefined;
    const [hook] = await this.db.query<PgHookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE id = $1`, [delivery.webhook_id]);
    if (!hook) return undefined;
    return { delivery: toDelivery(delivery), scheduleStep: delivery.schedule_step, hook: toHook(hook) };
  }

  /** A scheduled attempt got a 2xx: delivered, the subscription's failing streak ends. */
  async recordDelivered(tx: Tx, deliveryId: number, webhookId: string, result: AttemptResult): Promise<void> {
    const c = client(tx);
    await c.query("UPDATE webhook_deliveries SET status = 'delivered', http_code = $1, attempts = attempts + 1, next_attempt_at = NULL, last_error = NULL WHERE id = $2", [result.httpCode, deliveryId]);
    await c.query("UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL", [webhookId]);
  }

  /**
   * A scheduled attempt failed: pending again until `retryAt`, or `failed` when null. Answers true
   * when this attempt deactivated the subscription (decision W5).
   */
  async recordFailed(tx: Tx, deliveryId: number, webhookId: string, result: AttemptResult, retryAt: number | null): Promise<boolean> {
    const c = client(tx);
    // Only a pending delivery moves on in the schedule (see the SQLite store); PostgreSQL too
    // evaluates every SET expression on the row as it was.
    const status = retryAt === null ? "failed" : "pending";
    await lockHook(c, webhookId);
    await c.query(
      `UPDATE webhook_deliveries SET http_code = $1, attempts = attempts + 1, last_error = $2, schedule_step = schedule_step + $3,
         status = CASE WHEN status = 'pending' THEN $4 ELSE status END,
         next_attempt_at = CASE WHEN status = 'pending' THEN $5 ELSE NULL END
       WHERE id = $6`,
      [result.httpCode, result.error ?? null, retryAt === null ? 0 : 1, status, retryAt === null ? null : iso(retryAt), deliveryId],
    );
    return this.failedAttempt(c, webhookId, result.at);
  }

  /** A delivery whose subscription was deactivated while it waited: failed without an attempt. */
  async abandon(tx: Tx, deliveryId: number): Promise<void> {
    const c = client(tx);
    await c.query("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1 AND status = 'pending'", [deliveryId]);
  }

  /**
   * A redelivery (one extra attempt, outside the schedule), in a transaction of its own: adds the
   * attempt, keeps a pending delivery's schedule unless it was delivered now (then its job goes).
   */
  recordRedelivery(deliveryId: number, webhookId: string, result: AttemptResult, delivered: boolean): Promise<void> {
    return this.db.tx(async (c) => {
      if (delivered) {
        await c.query("UPDATE webhook_deliveries SET status = 'delivered', http_code = $1, attempts = attempts + 1, next_attempt_at = NULL, last_error = NULL WHERE id = $2", [result.httpCode, deliveryId]);
        await this.jobs.cancelWhere(c, DELIVER_JOB, "$.deliveryId", deliveryId);
        // A receiver that answers again earns its subscription back (decision W5).
        await c.query("UPDATE webhooks SET failing_since = NULL, active = true WHERE id = $1", [webhookId]);
      } else {
        await lockHook(c, webhookId);
        await c.query("UPDATE webhook_deliveries SET http_code = $1, attempts = attempts + 1, last_error = $2 WHERE id = $3", [result.httpCode, result.error ?? null, deliveryId]);
        await this.failedAttempt(c, webhookId, result.at);
      }
    });
  }

  /** Starts or extends the subscription's failing streak; deactivates it after DEACTIVATE_AFTER_MS. */
  private async failedAttempt(c: Queryable, webhookId: string, at: number): Promise<boolean> {
    // The UPDATE locks the subscription's row until commit: a parallel attempt on another
    // instance waits here and then reads `active` as this one left it.
    const [row] = await rows<{ failing_since: number; active: boolean }>(c, "UPDATE webhooks SET failing_since = COALESCE(failing_since, $1) WHERE id = $2 RETURNING failing_since, active", [at, webhookId]);
    if (!row || !row.active || at - row.failing_since < DEACTIVATE_AFTER_MS) return false;
    await c.query("UPDATE webhooks SET active = false WHERE id = $1", [webhookId]);
    // Its waiting deliveries are given up now rather than attempted against a dead receiver.
    await this.jobs.cancelWhere(c, DELIVER_JOB, "$.webhookId", webhookId);
    await c.query("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending'", [webhookId]);
    return true;
  }
}
