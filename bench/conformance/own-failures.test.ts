// Which answers count as "the suite's own" in bench:contracts (decision CL7): Prism's refusals of
// a request, whether in its problem type or, where the operation documents a 400/422/4XX, in the
// documented response with an `sl-violations` header (what Prism answered on Redocly's museum and
// Discord; those were not counted before).
import { describe, expect, it } from "vitest";
import { refusedByServer } from "./own-failures.ts";
import type { Exchange } from "../../conformance/engine/types.ts";

const exchange = (status: number, headers: Record<string, string>, json: unknown) =>
  ({ response: { status, headers, json, text: JSON.stringify(json), isJson: true } }) as unknown as Exchange;

describe("refusedByServer", () => {
  it("counts Prism's problem type and a documented error answered with request violations", () => {
    expect(refusedByServer(exchange(422, {}, { type: "https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY" }))).toBe(true);
    const violations = JSON.stringify([{ location: ["request", "query", "startdate"], severity: "Error", code: "format", message: "must match format date" }]);
    expect(refusedByServer(exchange(400, { "sl-violations": violations }, { type: "object", title: "Validation failed" }))).toBe(true);
  });

  it("does not count a plain documented error, a warning-only violation, or a 2xx", () => {
    expect(refusedByServer(exchange(400, {}, { error: "bad" }))).toBe(false);
    expect(refusedByServer(exchange(400, { "sl-violations": JSON.stringify([{ severity: "Warning" }]) }, {}))).toBe(false);
    expect(refusedByServer(exchange(200, { "sl-violations": JSON.stringify([{ severity: "Error" }]) }, {}))).toBe(false);
  });
});

describe("the hook", () => {
  it("counts a refused case the suite called valid, not one holding a server's id that breaks the schema", async () => {
    const { default: hooks, ownRequests } = await import("./own-failures.ts");
    const op = {
      id: "deleteCommand",
      method: "DELETE",
      path: "/commands/{id}",
      tags: [],
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[0-9]+$" }, examples: [] }],
      responses: [],
      security: [],
      raw: {},
    };
    const refused = { status: 422, headers: { "sl-violations": JSON.stringify([{ severity: "Error" }]) }, json: {}, text: "{}", isJson: true };
    const send = (id: string) =>
      hooks.after["*"]({ operation: op, case: { operationId: op.id, pathParams: { id }, query: {}, headers: {}, hasBody: false, mode: "positive" }, request: { method: "DELETE", url: `/commands/${id}`, headers: {} }, response: refused, phase: "coverage", keyRole: "default" } as unknown as Exchange);
    send("123");
    send("string");
    expect([...ownRequests()].filter((k) => k.startsWith("DELETE /commands/"))).toEqual(["DELETE /commands/123 "]);
  });
});
