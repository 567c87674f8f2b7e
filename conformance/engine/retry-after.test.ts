// Issue 39 item 6: a 429 with Retry-After is waited out (up to a bound) and sent again, and a run
// whose answers were mostly 429 says so, as it does for 401/403.
import { describe, expect, it } from "vitest";
import { json, runOn } from "../fixtures/run-on.ts";
import { MAX_RETRY_AFTER_MS, retryAfterMs } from "./retry-after.ts";

const doc = {
  openapi: "3.1.0",
  info: { title: "limits", version: "1" },
  paths: {
    "/things": {
      get: {
        operationId: "listThings",
        parameters: [{ name: "q", in: "query", schema: { type: "string", maxLength: 5 } }],
        responses: { "200": { description: "ok", content: json({ type: "object" }) }, "429": { description: "slow down", content: json({ type: "object" }) } },
      },
    },
  },
};
const WARNING = /^most responses were 429: the checks mostly saw the rate limiter/;

describe("429 answers", () => {
  it.each([
    ["delay-seconds", "2", 2000],
    ["an HTTP date", new Date(1_000_000 + 3000).toUTCString(), 3000],
    ["beyond the bound", "3600", undefined],
    ["unreadable", "soon", undefined],
    ["absent", undefined, undefined],
  ])("Retry-After %s", (_name, value, ms) => {
    expect(retryAfterMs(value, 1_000_000)).toBe(ms);
  });

  it("a 429 with Retry-After is sent again and the run sees the answer that follows", async () => {
    let n = 0;
    // Every other request is refused once, for no time: what a token bucket refilling does.
    const { result, requests, failures } = await runOn(doc, () => (n++ % 2 === 0 ? { status: 429, body: {}, headers: { "retry-after": "0" } } : { status: 200, body: {} }), { mode: "positive", checks: ["not_a_server_error", "status_code_conformance"] });
    expect(result.ledger.retried).toBeGreaterThan(0);
    expect(result.ledger.coverage.get("listThings")?.statuses.get(429)).toBeUndefined();
    expect(requests.length).toBe(result.ledger.requests);
    expect(result.ledger.notices.filter((n) => WARNING.test(n))).toEqual([]);
    expect(failures).toEqual([]);
  });

  it("a run whose answers stay 429 warns", async () => {
    const { result } = await runOn(doc, () => ({ status: 429, body: {}, headers: { "retry-after": "0" } }), { mode: "positive", checks: ["not_a_server_error"] });
    expect(result.ledger.notices).toContainEqual(expect.stringMatching(WARNING));
  });

  it("a Retry-After beyond the bound is not waited for", async () => {
    const { result } = await runOn(doc, () => ({ status: 429, body: {}, headers: { "retry-after": String(MAX_RETRY_AFTER_MS) } }), { mode: "positive", checks: ["not_a_server_error"] });
    expect(result.ledger.retried).toBe(0);
    expect(result.ledger.notices).toContainEqual(expect.stringMatching(WARNING));
  });
});
