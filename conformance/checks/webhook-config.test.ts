// Issue 39 item 4: webhooks of an API that is not the platform are checked through the config
// (where the subscription takes the URL, which webhook's schema judges the payload, how deliveries
// are signed); without a config, each webhook not checked is named in a WARNING.
import { createHmac } from "node:crypto";
import http from "node:http";
import { describe, expect, it } from "vitest";
import type { ConformanceConfig } from "../engine/config.ts";
import { json, runOn } from "../fixtures/run-on.ts";
import type { Answer } from "../fixtures/recording-server.ts";

const shipped = { type: "object", required: ["orderId", "carrier"], properties: { orderId: { type: "string" }, carrier: { type: "string" } } };
const doc = {
  openapi: "3.1.0",
  info: { title: "shop", version: "1" },
  webhooks: {
    orderShipped: { post: { requestBody: { content: json(shipped) }, responses: { "200": { description: "ok" } } } },
    orderLost: { post: { requestBody: { content: json(shipped) }, responses: { "200": { description: "ok" } } } },
  },
  paths: {
    "/subscriptions": {
      post: {
        operationId: "subscribe",
        requestBody: { required: true, content: json({ type: "object", required: ["target"], properties: { target: { type: "object", required: ["href"], properties: { href: { type: "string", format: "uri" } } } } }) },
        responses: { "201": { description: "made", content: json({ type: "object", properties: { id: { type: "string" }, signingKey: { type: "string" } } }) } },
      },
    },
    "/orders/{id}/ship": {
      post: { operationId: "shipOrder", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^o[0-9]$" } }], responses: { "202": { description: "shipping", content: json({ type: "object" }) } } },
    },
  },
};
const KEY = "k3y-not-prefixed";

/** A shop that signs with base64 HMAC in X-Shop-Signature; `payload` and `sign` can be broken. */
const shop = (payload: object = { orderId: "o1", carrier: "post" }, sign = (body: string) => createHmac("sha256", KEY).update(body).digest("base64")): Answer => {
  let target: string | undefined;
  return (r) => {
    if (r.url === "/subscriptions") {
      target = JSON.parse(r.body.toString())?.target?.href;
      return { status: 201, body: { id: "s1", signingKey: KEY } };
    }
    if (r.url.endsWith("/ship") && target?.startsWith("http://127.0.0.1:")) {
      const body = JSON.stringify(payload);
      http.request(target, { method: "POST", headers: { "content-type": "application/json", "x-shop-signature": sign(body) } }).on("error", () => {}).end(body);
    }
    return { status: 202, body: {} };
  };
};
const webhooks: ConformanceConfig["webhooks"] = {
  subscribe: "subscribe", urlAt: "$request.body#/target/href", webhook: "orderShipped", eventHeader: false, waitMs: 3000,
  trigger: { operationId: "shipOrder", event: "orderShipped" },
  signature: { header: "X-Shop-Signature", prefix: "", encoding: "base64", secretAt: "$response.body#/signingKey" },
};
const runWith = (answer: Answer, config: ConformanceConfig) =>
  runOn(doc, answer, { checks: ["webhook_signature_conformance"], phases: ["stateful"], mode: "positive", config: { keys: { all: "k" }, ...config } });

describe("webhooks configured for another API", () => {
  it("a conforming delivery passes; the webhook the trigger does not cause is named as not checked", async () => {
    const { result, failures } = await runWith(shop(), { webhooks });
    expect(failures).toEqual([]);
    expect(result.ledger.outcomes.get("subscribe")?.get("webhook_signature_conformance")).toEqual({ passed: 1, failed: 0 });
    expect(result.ledger.notices).toContain("webhooks not checked (1 of 2): orderLost; the configured trigger causes one event only");
  });

  it.each([
    ["a payload that breaks the webhook's schema", shop({ orderId: 7 }), "Webhook payload violates schema"],
    ["a signature made with another key", shop(undefined, (b) => createHmac("sha256", "other").update(b).digest("base64")), "Bad webhook signature"],
  ])("%s fails", async (_name, answer, title) => {
    const { result } = await runWith(answer, { webhooks });
    expect(result.ledger.failures.map((f) => `${f.check} ${f.operation}: ${f.title}`)).toEqual([`webhook_signature_conformance subscribe: ${title}`]);
  });

  it("unsigned webhooks (signature: false) are judged by payload alone", async () => {
    const { failures, result } = await runWith(shop(undefined, () => ""), { webhooks: { ...webhooks, signature: false } });
    expect(failures).toEqual([]);
    expect(result.ledger.outcomes.get("subscribe")?.get("webhook_signature_conformance")).toEqual({ passed: 1, failed: 0 });
  });

  it("without a webhooks config, a WARNING names every webhook not checked", async () => {
    const { result } = await runWith(shop(), {});
    expect(result.ledger.notices).toContain('webhooks not checked (2 of 2): orderShipped, orderLost; no "webhooks" config says how to subscribe (subscribe, trigger, urlAt, signature)');
  });
});
