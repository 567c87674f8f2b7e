// Issue 39 item 2: an error answer is judged by the schema its own operation documents for that
// status (exact, `4XX`, `default`), never by the one most operations share, and a status the
// operation does not document (a router's 405) is judged only by a configured API-wide errorSchema.
import { describe, expect, it } from "vitest";
import type { Answer } from "../fixtures/recording-server.ts";
import { json, runOn } from "../fixtures/run-on.ts";

const message = { type: "object", required: ["message"], properties: { message: { type: "string" } } };
const code = { type: "object", required: ["code"], properties: { code: { type: "string" } } };
const ok = { "200": { description: "ok", content: json({ type: "object" }) } };
const id = [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^t[0-9]$" } }];
const doc = {
  openapi: "3.1.0",
  info: { title: "errors", version: "1" },
  components: { schemas: { Problem: code } },
  paths: {
    // Two operations document a 404 { message }: the schema an inference would pick for everyone.
    "/a/{id}": { get: { operationId: "getA", parameters: id, responses: { ...ok, "404": { description: "none", content: json(message) } } } },
    "/b/{id}": { get: { operationId: "getB", parameters: id, responses: { ...ok, "404": { description: "none", content: json(message) } } } },
    // Its own errors are { code }, by its `default` and its 4XX range.
    "/c/{id}": { get: { operationId: "getC", parameters: id, responses: { ...ok, "4XX": { description: "bad", content: json({ $ref: "#/components/schemas/Problem" }) } } } },
    "/d/{id}": { delete: { operationId: "deleteD", parameters: id, responses: { "204": { description: "gone" }, default: { description: "err", content: json(code) } } } },
  },
};

// 404 with the body each operation documents; 405 as plain text to methods no path declares.
const correct: Answer = (r) => {
  const [, seg] = r.url.split("/");
  const declared = { a: "GET", b: "GET", c: "GET", d: "DELETE" }[seg as "a"];
  if (r.method !== declared) return { status: 405, body: undefined, headers: { allow: declared ?? "", "content-type": "text/plain" } };
  return seg === "c" || seg === "d" ? { status: 409, body: { code: "conflict" } } : { status: 404, body: { message: "none" } };
};
// c and d answer 409 although only getC's 4XX and deleteD's default cover it: fair answers.

const run = (answer: Answer, config: object = {}) =>
  runOn(doc, answer, { checks: ["error_body_conformance", "unsupported_method"], mode: "positive", config: { keys: { all: "k" }, ...config } });

describe("error bodies judged by their own operation", () => {
  it("a correct server: each operation's errors match its own documentation; a 405 the contract never describes is not judged", async () => {
    const { failures, requests } = await run(correct);
    expect(requests.some((r) => r.url.startsWith("/c/")) && requests.some((r) => r.url.startsWith("/d/"))).toBe(true);
    expect(failures.filter((f) => f.startsWith("error_body"))).toEqual([]);
  });

  it("an operation's own documented error body is still enforced", async () => {
    const wrong: Answer = (r) => (r.url.startsWith("/d/") && r.method === "DELETE" ? { status: 409, body: { message: "x" } } : correct(r));
    const { failures } = await run(wrong);
    expect(failures.filter((f) => f.startsWith("error_body"))).toEqual([expect.stringMatching(/^error_body_conformance deleteD: \[409\] .*judged by the schema deleteD documents for 409/)]);
  });

  it("a configured API-wide errorSchema ($ref into the contract) also judges the router's 405", async () => {
    const { failures } = await run(correct, { errorSchema: { $ref: "#/components/schemas/Problem" } });
    expect(failures.filter((f) => f.startsWith("error_body")).map((f) => f.replace(/:.*/, ""))).toEqual(expect.arrayContaining(["error_body_conformance getA"]));
    expect(failures.filter((f) => f.startsWith("error_body")).every((f) => /\[405\] error body is not JSON \(judged by the config's errorSchema\)/.test(f))).toBe(true);
  });
});
