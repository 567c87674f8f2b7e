// Opt-in: subscribe a local receiver, cause an event through the API, then verify the delivery:
// the signature header is `sha256=` + hex HMAC-SHA256 of the raw body keyed with the whole
// secret (prefix included), the event header names the event, the payload matches the contract's
// webhook schema, and the delivery log holds the exact signed body.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Check, CheckContext } from "../engine/check-api.ts";
import { startReceiver } from "../engine/receiver.ts";
import { requiredQueryOnly } from "../engine/stateful.ts";
import { validate } from "../engine/validator.ts";
import type { Finding, JsonSchema } from "../engine/types.ts";

function webhookSpec(ctx: CheckContext, event: string): { schema?: JsonSchema; signature: string; eventHeader: string } {
  const hooks: Record<string, any> = ctx.contract.raw.webhooks ?? {};
  const entry = hooks[event]?.post ?? Object.values(hooks).find((h: any) => h?.post?.operationId === event)?.post;
  const headerNames: string[] = Object.values(hooks).flatMap((h: any) => (h?.post?.parameters ?? []).filter((p: any) => p.in === "header").map((p: any) => String(p.name).toLowerCase()));
  return {
    schema: entry?.requestBody?.content?.["application/json"]?.schema,
    signature: headerNames.find((n) => n.includes("signature")) ?? "x-platform-signature",
    eventHeader: headerNames.find((n) => n.includes("event")) ?? "x-platform-event",
  };
}

function findSecret(body: unknown): string | undefined {
  if (typeof body === "string") return body.startsWith("whsec_") ? body : undefined;
  if (!body || typeof body !== "object") return undefined;
  if (typeof (body as any).secret === "string") return (body as any).secret;
  for (const v of Object.values(body)) {
    const s = findSecret(v);
    if (s) return s;
  }
  return undefined;
}

export const webhookSignatureConformance: Check = {
  name: "webhook_signature_conformance",
  title: "Webhook delivery does not verify",
  severity: "critical",
  stateless: false,
  phase: "stateful",
  optIn: true,
  async probe(ctx, op) {
    const cfg = ctx.config.webhooks;
    if (!cfg || cfg.subscribe !== op.id) return null;
    const trigger = ctx.operation(cfg.trigger.operationId);
    const base = ctx.sampleCase(op, 41);
    const sampled = trigger && ctx.sampleCase(trigger, 43);
    const cause = sampled && {
      ...sampled,
      ...(cfg.trigger.body !== undefined ? { body: cfg.trigger.body } : {}),
      ...(cfg.trigger.pathParams ? { pathParams: { ...sampled.pathParams, ...cfg.trigger.pathParams } } : {}),
    };
    if (!trigger || !base || !cause) return null;
    const urlPattern = (op.body?.schema as any)?.properties?.url?.pattern ?? "";
    const receiver = await startReceiver(cfg.protocol ?? (String(urlPattern).includes("https") ? "https" : "http"));
    const findings: Finding[] = [];
    let unjudged: string | undefined;
    try {
      const url = cfg.receiverUrl ?? receiver.url;
      const body = { ...(base.body as object), url, ...("events" in ((op.body?.schema as any)?.properties ?? {}) ? { events: [cfg.trigger.event] } : {}) };
      const sub = await ctx.send(op, { ...base, body }, { probe: "webhook_signature_conformance" });
      const secret = findSecret(sub.response.json);
      if (sub.response.status >= 300 || !secret) {
        return [{ title: "Subscription failed", message: `subscribing answered ${sub.response.status}${secret ? "" : " without a secret"}`, expected: "2xx with a secret", got: sub.response.text.slice(0, 200), request: sub.request, status: sub.response.status }];
      }
      const fired = await ctx.send(trigger, cause, { probe: "webhook_signature_conformance" });
      if (fired.response.status >= 300) return null; // the event was not caused; nothing to judge
      const spec = webhookSpec(ctx, cfg.trigger.event);
      const delivery = await receiver.waitFor((d) => d.headers[spec.eventHeader] === cfg.trigger.event, cfg.waitMs ?? 5000);
      if (!delivery) {
        return [{ title: "No delivery", message: `no ${cfg.trigger.event} delivery reached the receiver (${receiver.deliveries.length} other deliveries)`, expected: "a signed POST", got: "nothing", request: fired.request }];
      }
      const want = `sha256=${createHmac("sha256", secret).update(delivery.body).digest("hex")}`;
      const got = delivery.headers[spec.signature] ?? "";
      if (got.length !== want.length || !timingSafeEqual(Buffer.from(got), Buffer.from(want))) {
        findings.push({ title: "Bad webhook signature", message: `${spec.signature} does not match HMAC-SHA256(secret, raw body)`, expected: want, got: got || "(missing)", request: fired.request });
      }
      if (spec.schema) {
        let payload: unknown;
        try {
          payload = JSON.parse(delivery.body);
        } catch {
          payload = undefined;
        }
        const verdict = validate(spec.schema, payload);
        if (verdict.unvalidated) unjudged = `webhook payload schema: ${verdict.unvalidated}`;
        if (!verdict.valid) findings.push({ title: "Webhook payload violates schema", message: verdict.errors.join("; "), expected: "the contract's webhook schema", got: delivery.body.slice(0, 200), request: fired.request });
      }
      const log = cfg.deliveries ? ctx.operation(cfg.deliveries) : undefined;
      const subId = (sub.response.json as any)?.id;
      const logCase = log && ctx.sampleCase(log, 47);
      if (log && logCase && subId !== undefined) {
        const param = log.parameters.find((p) => p.in === "path")?.name ?? "id";
        // Only the required query parameters: an optional filter or cursor drawn at random (a
        // `before` cursor, a status filter) may leave the new delivery out of the page.
        const ex = await ctx.send(log, requiredQueryOnly(log, { ...logCase, pathParams: { ...logCase.pathParams, [param]: subId } }));
        const records: any[] = Object.values((ex.response.json as any) ?? {}).find(Array.isArray) ?? [];
        if (!records.some((r) => r?.payload === delivery.body)) {
          findings.push({ title: "Delivery log lacks the signed body", message: `${log.id} holds no delivery whose payload equals the signed body`, expected: delivery.body.slice(0, 120), got: ex.response.text.slice(0, 200), request: ex.request, status: ex.response.status });
        }
      }
      // No finding, but the payload was never checked: not a pass.
      return !findings.length && unjudged ? { unvalidated: unjudged } : findings;
    } finally {
      await receiver.close();
    }
  },
};
