// Issue 39 item 1: a HEAD answer has no body (RFC 9110 9.3.2), so it is never judged against the
// JSON body schema the operation documents, and its repro line is `curl -I`, not `curl -X HEAD`
// (which waits for the body the Content-Length announces).
import { describe, expect, it } from "vitest";
import { toCurl } from "../engine/request.ts";
import { json, runOn } from "../fixtures/run-on.ts";

const thing = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
const doc = {
  openapi: "3.1.0",
  info: { title: "head", version: "1" },
  paths: {
    "/things/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^t[0-9]$" } }],
      get: { operationId: "getThing", responses: { "200": { description: "ok", content: json(thing) } } },
      head: { operationId: "headThing", responses: { "200": { description: "ok", content: json(thing) } } },
    },
  },
};

describe("HEAD answers", () => {
  it("are not judged against the body schema (Node sends no body to HEAD); GET still is", async () => {
    const { failures, requests } = await runOn(doc, () => ({ status: 200, body: { id: "t1" } }), { checks: ["response_schema_conformance", "content_type_conformance"], mode: "positive" });
    expect(requests.some((r) => r.method === "HEAD")).toBe(true);
    expect(failures).toEqual([]);
  });

  it("a GET answer breaking the schema still fails (the check is alive)", async () => {
    const { failures } = await runOn(doc, (r) => ({ status: 200, body: r.method === "GET" ? { name: 1 } : { id: "t1" } }), { checks: ["response_schema_conformance"], mode: "positive" });
    expect(failures).toEqual([expect.stringMatching(/^response_schema_conformance getThing: \[200\]/)]);
  });

  it("the repro line of a HEAD request is curl -I", () => {
    expect(toCurl({ method: "HEAD", url: "http://127.0.0.1:1/things/t1", headers: { accept: "application/json" } })).toBe("curl -I 'http://127.0.0.1:1/things/t1' -H 'accept: application/json'");
    expect(toCurl({ method: "GET", url: "http://127.0.0.1:1/x", headers: {} })).toBe("curl -X GET 'http://127.0.0.1:1/x'");
  });
});
