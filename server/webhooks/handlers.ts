// Webhook subscriptions: the whsec_ secret is returned once and stored sealed with the server key.
import { randomBytes } from "node:crypto";
import type { WebhooksHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Limits } from "../config.ts";
import { invalid, notFound, withinCap } from "../http/errors.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { DeliveryEngine } from "./delivery-engine.ts";
import type { WebhookRepository } from "./webhook-repository.ts";
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
      const secret = `whsec_${randomBytes(24).toString("base64url")}`;
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
      return {
        deliveries: deliveries.map((d) => ({
          id: d.id, event: d.event as EventName, status: d.status, httpCode: d.httpCode, attempts: d.attempts,
          payload: d.payload, createdAt: d.createdAt, nextAttemptAt: d.nextAttemptAt,
        })),
      };
    },

    async redeliverWebhookDelivery({ params, auth }) {
      const w = await hook(auth.projectId, params.id);
      const delivery = await deps.webhooks.getDelivery(w.id, Number(params.deliveryId));
      if (!delivery) throw notFound(`delivery ${params.deliveryId} of webhook ${w.id}`);
      // One extra attempt now; a failure leaves the log's status and the schedule as they were.
      const result = await deps.deliveries.redeliver(w, delivery);
      return { status: result.delivered ? "delivered" : "failed", httpCode: result.httpCode };
    },
  };
}
