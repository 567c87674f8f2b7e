// Webhook subscriptions: the whsec_ secret is returned once and stored sealed with the server key.
import type { WebhooksHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Limits } from "../config.ts";
import { conflict, invalid, notFound, withinCap } from "../http/errors.ts";
import type { Clock } from "../jobs/clock.ts";
import { newSigningSecret } from "../secrets/signing-secret.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { DeliveryEngine } from "./delivery-engine.ts";
import type { WebhookRepository } from "./webhook-repository.ts";
import { isEventType, sampleEvent } from "./sample-events.ts";
import type { DeliveryRecord } from "./webhook-repository.ts";
import { webhookUrlProblem } from "./webhook-url.ts";

export const ALL_EVENTS = [
  "mail.received", "mail.delivered", "mail.bounced", "mail.complained", "mail.opened", "mail.clicked", "mail.dlp", "maildomain.status_changed",
] as const;
type EventName = (typeof ALL_EVENTS)[number];

export interface WebhookDeps {
  webhooks: WebhookRepository;
  secrets: SecretBox;
  /** Redelivery goes through the engine: same adapter, same log as the scheduled attempts. */
  deliveries: DeliveryEngine;
  allowHttpLoopback: boolean;
  limits: Limits;
  clock: Clock;
}

/** A log entry as the API shows it. */
function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id, event: d.event as EventName, status: d.status, httpCode: d.httpCode, attempts: d.attempts,
    payload: d.payload, createdAt: d.createdAt, nextAttemptAt: d.nextAttemptAt, test: d.test,
  };
}

export function webhookHandlers(deps: WebhookDeps): WebhooksHandlers<AuthContext> {
  async function hook(projectId: string, id: string) {
    const w = await deps.webhooks.get(projectId, id);
    if (!w) throw notFound(`webhook ${id}`);
    return w;
  }

  return {
    async createWebhook({ body, auth }) {
      const problem = webhookUrlProblem(body.url, deps.allowHttpLoopback);
      if (problem) throw invalid("body.url", problem);
      // Missing or empty means every event (docs/decisions.md).
      const events = body.events?.length ? [...new Set(body.events)] : [...ALL_EVENTS];
      // Alphanumeric after the prefix: the same key in every Standard Webhooks library (decision W7).
      const secret = newSigningSecret();
      const w = await withinCap(
        deps.webhooks.create({ projectId: auth.projectId, url: body.url, events, secretSealed: deps.secrets.seal(secret) }, deps.limits.webhooks),
        "webhooks",
      );
      return { id: w.id, url: w.url, events: w.events as EventName[], secret };
    },

    async listWebhooks({ auth }) {
      const hooks = await deps.webhooks.list(auth.projectId);
      return { webhooks: hooks.map((w) => ({ id: w.id, url: w.url, events: w.events as EventName[], active: w.active })) };
    },

    async deleteWebhook({ params, auth }) {
      if (!(await deps.webhooks.delete(auth.projectId, params.id))) throw notFound(`webhook ${params.id}`);
      return { deleted: true };
    },

    async listWebhookDeliveries({ params, query, auth }) {
      const w = await hook(auth.projectId, params.id);
      const deliveries = await deps.webhooks.listDeliveries(w.id, query.limit ?? 50, query.before);
      return { deliveries: deliveries.map(deliveryView) };
    },

    async redeliverWebhookDelivery({ params, auth }) {
      const w = await hook(auth.projectId, params.id);
      const delivery = await deps.webhooks.getDelivery(w.id, Number(params.deliveryId));
      if (!delivery) throw notFound(`delivery ${params.deliveryId} of webhook ${w.id}`);
      // One extra attempt now; a failure leaves the log's status and the schedule as they were.
      const result = await deps.deliveries.redeliver(w, delivery);
      return { status: result.delivered ? "delivered" : "failed", httpCode: result.httpCode };
    },

    async sendWebhookTestEvent({ params, body, auth }) {
      const w = await hook(auth.projectId, params.id);
      // The contract's enum already refused unknown names; this keeps the server's list the one
      // that decides, should the two ever differ.
      if (!isEventType(body.event)) throw invalid("body.event", `must be one of ${ALL_EVENTS.join(", ")}`);
      // An inactive subscription's deliveries are given up unattempted (W5): say so instead.
      if (!w.active) throw conflict(`webhook ${w.id} is inactive (every delivery failed for 5 days, decision W5): redeliver one of its deliveries to revive it`);
      const sample = sampleEvent(body.event, deps.clock.now());
      return deliveryView(await deps.webhooks.addTestDelivery(w, { type: body.event, body: sample.body, createdAt: sample.createdAt }));
    },
  };
}
