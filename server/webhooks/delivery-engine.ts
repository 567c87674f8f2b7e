// The webhook delivery engine: the handler of `webhook.deliver` jobs (server/jobs) and the
// redelivery of one logged delivery. Both send through the same adapter and write the same log.
// A scheduled attempt first checks that its work is still to do (at-least-once queue: a job
// interrupted by kill -9 runs again, and a delivery recorded as delivered is never sent again),
// then POSTs the stored body exactly as it was signed, and schedules the next attempt per W2.
import type { SendResult } from "../adapters/webhook-sender.ts";
import type { Clock } from "../jobs/clock.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { DeliveryStore } from "./delivery-store.ts";
import type { DeliveryRecord, WebhookRecord } from "./webhook-repository.ts";

/** Decision W2: waits before retries 1 to 6, each after the previous attempt (about 20.6 h in all). */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000];

/** POSTs a delivery's stored body to its subscription, signed (adapters/webhook-sender.ts). */
export type SendDelivery = (hook: WebhookRecord, delivery: DeliveryRecord) => Promise<SendResult>;

export interface DeliveryEngineDeps {
  store: DeliveryStore;
  send: SendDelivery;
  clock: Clock;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface DeliveryEngine {
  /** The `webhook.deliver` job handler. */
  job: JobHandler;
  /** One extra attempt now (the redeliver endpoint); the schedule goes on as it was. */
  redeliver(hook: WebhookRecord, delivery: DeliveryRecord): Promise<SendResult>;
}

export function deliveryEngine(deps: DeliveryEngineDeps): DeliveryEngine {
  const { store, send, clock } = deps;
  const failure = (r: SendResult) => r.error ?? `HTTP ${r.httpCode}`;

  const job: JobHandler = async (j) => {
    const { deliveryId } = j.payload as { deliveryId: number };
    const pending = await store.load(deliveryId);
    if (!pending) return { done: true }; // the subscription was deleted, its log with it
    const { delivery, hook, scheduleStep } = pending;
    if (delivery.status !== "pending") return { done: true }; // delivered (maybe by a redelivery) or given up
    if (!hook.active) return { done: true, write: (tx) => store.abandon(tx, delivery.id) };

    const result = await send(hook, delivery);
    const at = clock.now();
    if (result.delivered) {
      return { done: true, write: (tx) => store.recordDelivered(tx, delivery.id, hook.id, { httpCode: result.httpCode, at }) };
    }
    const attempt = { httpCode: result.httpCode, error: failure(result), at };
    if (scheduleStep >= RETRY_DELAYS_MS.length) {
      return { done: true, write: async (tx) => void (await store.recordFailed(tx, delivery.id, hook.id, attempt, null)) };
    }
    const retryAt = at + RETRY_DELAYS_MS[scheduleStep];
    return {
      retryAt,
      error: attempt.error,
      write: async (tx) => {
        if (await store.recordFailed(tx, delivery.id, hook.id, attempt, retryAt)) deps.log?.("webhook deactivated after 5 days of failed deliveries", { webhookId: hook.id });
      },
    };
  };

  return {
    job,
    async redeliver(hook, delivery) {
      const result = await send(hook, delivery);
      await store.recordRedelivery(delivery.id, hook.id, { httpCode: result.httpCode, error: result.delivered ? undefined : failure(result), at: clock.now() }, result.delivered);
      return result;
    },
  };
}
