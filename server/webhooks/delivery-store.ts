// The storage boundary of the delivery engine, on either backend. The writes of a scheduled
// attempt join the transaction in which the job worker records the job's own rescheduling or
// removal (`tx`, server/db/tx.ts): synchronous on SQLite, awaited on PostgreSQL.
import type { Tx } from "../db/tx.ts";
import type { DeliveryRecord, WebhookRecord } from "./webhook-repository.ts";

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
  recordDelivered(tx: Tx, deliveryId: number, webhookId: string, result: AttemptResult): void | Promise<void>;
  /**
   * A scheduled attempt failed: pending again until `retryAt`, or `failed` when null. Counts toward
   * the subscription's deactivation (decision W5); returns true when this attempt deactivated it.
   */
  recordFailed(tx: Tx, deliveryId: number, webhookId: string, result: AttemptResult, retryAt: number | null): boolean | Promise<boolean>;
  /** A delivery whose subscription was deactivated while it waited: failed without an attempt. */
  abandon(tx: Tx, deliveryId: number): void | Promise<void>;
  /**
   * A redelivery (one extra attempt, outside the schedule), in a transaction of its own: adds the
   * attempt, keeps a pending delivery's schedule unless it was delivered now (then its job goes).
   */
  recordRedelivery(deliveryId: number, webhookId: string, result: AttemptResult, delivered: boolean): Promise<void>;
}
