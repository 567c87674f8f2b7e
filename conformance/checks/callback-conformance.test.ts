// Issue 39 item 4: callbacks are checked. The suite's receiver URL goes where the callback's
// runtime expression reads it (body, query, header), and the request the implementation sends
// there is judged; what cannot be checked is a WARNING naming the callback, never a pass.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { json, runOn } from "../fixtures/run-on.ts";
import type { Answer, Recorded } from "../fixtures/recording-server.ts";

const event = { type: "object", required: ["id", "state"], properties: { id: { type: "string" }, state: { type: "string", enum: ["done"] } } };
const contract = (expression: string, where: "body" | "query" | "header") => ({
  openapi: "3.1.0",
  info: { title: "callbacks", version: "1" },
  paths: {
    "/jobs": {
      post: {
        operationId: "createJob",
        parameters: where === "query" ? [{ name: "notify", in: "query", required: true, schema: { type: "string", format: "uri" } }] : where === "header" ? [{ name: "X-Notify", in: "header", required: true, schema: { type: "string" } }] : [],
        requestBody: { required: true, content: json({ type: "object", required: ["name"], properties: { name: { type: "string", maxLength: 8 }, ...(where === "body" ? { hook: { type: "object", properties: { url: { type: "string", format: "uri" } } } } : {}) } }) },
        callbacks: { jobDone: { [expression]: { post: { requestBody: { required: true, content: json(event) }, responses: { "204": { description: "ok" } } } } } },
        responses: { "202": { description: "accepted", content: json({ type: "object" }) } },
      },
    },
  },
});

/** Where each contract's callback address is, as a server reads it. */
const addressOf = (where: "body" | "query" | "header", r: Recorded): string | undefined => {
  if (where === "query") return new URL(r.url, "http://x").searchParams.get("notify") ?? undefined;
  if (where === "header") return r.headers["x-notify"] as string | undefined;
  try {
    return JSON.parse(r.body.toString())?.hook?.url;
  } catch {
    return undefined;
  }
};
/** An implementation that POSTs `payload` to the address the request gave, on loopback only. */
const calling = (where: "body" | "query" | "header", payload: unknown, suffix = "", method = "POST"): Answer => (r) => {
  const address = addressOf(where, r);
  if (address?.startsWith("http://127.0.0.1:")) http.request(address + suffix, { method, headers: { "content-type": "application/json" } }).on("error", () => {}).end(JSON.stringify(payload));
  return { status: 202, body: {} };
};
const only = { checks: ["callback_conformance"], phases: ["coverage" as const], mode: "positive" as const, config: { keys: { all: "k" }, callbacks: { waitMs: 3000 } } };

describe("callback_conformance", () => {
  it.each([
    ["a body property", "{$request.body#/hook/url}", "body"],
    ["a query parameter, with a path after it", "{$request.query.notify}/done", "query"],
    ["a header", "{$request.header.X-Notify}", "header"],
  ] as const)("the receiver's URL goes in %s; a conforming callback passes", async (_name, expression, where) => {
    const suffix = expression.endsWith("/done") ? "/done" : "";
    const { result, failures } = await runOn(contract(expression, where), calling(where, { id: "j1", state: "done" }, suffix), only);
    expect(failures).toEqual([]);
    expect(result.ledger.outcomes.get("createJob")?.get("callback_conformance")).toEqual({ passed: 1, failed: 0 });
    expect(result.ledger.notices.filter((n) => n.startsWith("callback"))).toEqual([]);
  });

  it.each([
    ["a body that breaks the schema", calling("body", { id: 1 }), /^callback_conformance createJob: callback jobDone POST: /],
    ["an undocumented method", calling("body", { id: "j1", state: "done" }, "", "PUT"), /^callback_conformance createJob: callback jobDone came as PUT$/],
  ])("%s fails", async (_name, answer, expected) => {
    const { failures } = await runOn(contract("{$request.body#/hook/url}", "body"), answer, only);
    expect(failures).toEqual([expect.stringMatching(expected)]);
  });

  it.each([
    ["no callback arrives", "{$request.body#/hook/url}", /^callback jobDone \(\{\$request.body#\/hook\/url\}\) of createJob not checked: no request reached the receiver within 3000 ms/],
    ["the address is literal", "https://events.example.test/jobs", /^callback jobDone \(https:\/\/events.example.test\/jobs\) of createJob not checked: its address is not taken from the request/],
  ])("when %s, a WARNING names the callback and nothing passes", async (_name, expression, warning) => {
    const { result, failures } = await runOn(contract(expression, "body"), () => ({ status: 202, body: {} }), only);
    expect(failures).toEqual([]);
    expect(result.ledger.notices).toContainEqual(expect.stringMatching(warning));
    expect(result.ledger.outcomes.get("createJob")?.get("callback_conformance")).toBeUndefined();
  });
});
