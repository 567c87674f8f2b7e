// webhook_signature_conformance reads the delivery log with the required query parameters only: a
// sampled case may carry an optional cursor or filter (`before=8` on our log) that leaves the new
// delivery off the page, and the check then reported a correct server (seen in the clean-clone
// CI through the proxy, on one seed in three).
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CheckContext } from "../engine/check-api.ts";
import type { Case, Exchange, Operation } from "../engine/types.ts";
import { requiredQueryOnly } from "../engine/stateful.ts";
import { webhookSignatureConformance } from "./webhook-signature-conformance.ts";

const op = (id: string, method: string, path: string, extra: Partial<Operation> = {}): Operation =>
  ({ id, method, path, tags: [], parameters: [], responses: [], security: [], raw: {}, ...extra }) as Operation;

describe("webhook_signature_conformance and the delivery log", () => {
  it("sends the log request without optional query parameters, and finds the delivery", async () => {
    const subscribe = op("createWebhook", "POST", "/v1/webhooks", { body: { required: true, mediaType: "application/json", schema: { type: "object", properties: { url: { type: "string" } } }, examples: [] } });
    const trigger = op("sendMail", "POST", "/v1/mail/send");
    const log = op("listWebhookDeliveries", "GET", "/v1/webhooks/{id}/deliveries", {
      parameters: [
        { name: "id", in: "path", required: true, schema: { type: "string" } },
        { name: "limit", in: "query", required: false, schema: { type: "integer" } },
        { name: "before", in: "query", required: false, schema: { type: "integer" } },
      ] as unknown as Operation["parameters"],
    });
    const secret = "whsec_test";
    let receiverUrl = "";
    const body = JSON.stringify({ id: "evt_1", type: "mail.delivered", data: {} });
    const logQueries: Record<string, unknown>[] = [];
    const exchange = (request: Exchange["request"], status: number, json: unknown): Exchange =>
      ({ request, response: { status, headers: {}, text: JSON.stringify(json), json, isJson: true } }) as Exchange;
    const ctx = {
      contract: { raw: {}, operations: [subscribe, trigger, log] },
      config: { webhooks: { subscribe: "createWebhook", trigger: { operationId: "sendMail", event: "mail.delivered" }, deliveries: "listWebhookDeliveries", protocol: "http" } },
      operation: (id: string) => [subscribe, trigger, log].find((o) => o.id === id),
      sampleCase: (o: Operation): Case => ({ operationId: o.id, pathParams: { id: "x" }, query: o === log ? { limit: 116, before: 8 } : {}, headers: {}, body: {}, hasBody: o !== log, mode: "positive" }),
      async send(o: Operation, c: Case): Promise<Exchange> {
        const request = { method: o.method, url: o.path, headers: {} };
        if (o === subscribe) {
          receiverUrl = (c.body as { url: string }).url;
          return exchange(request, 200, { id: "whk_1", secret });
        }
        if (o === trigger) {
          const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
          await fetch(receiverUrl, { method: "POST", body, headers: { "content-type": "application/json", "x-platform-signature": signature, "x-platform-event": "mail.delivered" } });
          return exchange(request, 200, { id: "msg_1" });
        }
        logQueries.push(c.query);
        // A server that honours the cursor: before=8 leaves the delivery (id 9) off the page.
        return exchange(request, 200, { deliveries: typeof c.query.before === "number" && c.query.before <= 9 ? [] : [{ id: 9, payload: body }] });
      },
    } as unknown as CheckContext;
    const findings = await webhookSignatureConformance.probe!(ctx, subscribe);
    expect(logQueries).toEqual([{}]);
    expect(findings).toEqual([]);
  });
});

describe("requiredQueryOnly (list lookups of every stateful check)", () => {
  it("keeps path parameters, headers, body and required query parameters; drops optional filters and cursors", () => {
    const lister = op("listDomains", "GET", "/v1/domains", {
      parameters: [
        { name: "project", in: "query", required: true, schema: { type: "string" } },
        { name: "status", in: "query", required: false, schema: { type: "string" } },
        { name: "before", in: "query", required: false, schema: { type: "integer" } },
      ] as unknown as Operation["parameters"],
    });
    const c: Case = { operationId: "listDomains", pathParams: { a: 1 }, query: { project: "p", status: "ended", before: 3 }, headers: { h: "1" }, hasBody: false, mode: "positive" };
    expect(requiredQueryOnly(lister, c)).toEqual({ ...c, query: { project: "p" } });
  });
});
