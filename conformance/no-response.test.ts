// A request that gets no answer (a timeout, a reset) while the server still answers others is
// reported once, by not_a_server_error, as "no response": no check judges a status that never
// came (it used to be a made-up 599, which unsupported_method then reported again as "answered
// 599"). And every failure is labelled with a phase that ran.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { run } from "./engine/runner.ts";
import { startTiny, TINY_CONTRACT, type TinyServer } from "./fixtures/tiny-api.ts";
import { buildContract } from "./engine/load-contract.ts";
import { CONTRACT_PATH, startPlatform } from "./fixtures/platform.ts";
import { writeFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const dir = mkdtempSync(path.join(os.tmpdir(), "conformance-noresponse-"));
const spec = path.join(dir, "tiny.json");
writeFileSync(spec, JSON.stringify(TINY_CONTRACT));
buildContract(TINY_CONTRACT); // the contract itself is fine

let api: TinyServer;
beforeAll(async () => {
  // A router that never answers methods it does not know (the request hangs until the client
  // gives up), and answers GET; a reset for one input of getGadget.
  api = await startTiny((req, res) => {
    if (req.method !== "GET") return; // never answered
    if (req.url === "/gadgets/g1") return req.socket.destroy();
    if (req.url?.startsWith("/gadgets/")) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end('{"items":[]}');
  });
});
afterAll(() => api.close());

describe("no response to some requests", () => {
  test("is reported once per operation as no response, never as status 599 or as another check's failure", async () => {
    const r = await run({ spec, baseUrl: api.url, phases: ["coverage"], checks: ["all"], maxExamples: 2, seed: 1, requestTimeoutMs: 1500, config: { operations: { getGadget: { values: { gadgetId: "g1" } } } } });
    const failures = r.ledger.failures.map(({ check, operation, got, phase }) => ({ check, operation, got, phase }));
    // listGadgets: the unsupported methods hang (probed from the path's only operation);
    // getGadget: its fixture value g1 gets the connection reset.
    expect(failures).toEqual(
      expect.arrayContaining([
        { check: "not_a_server_error", operation: "listGadgets", got: "no response", phase: "coverage" },
        { check: "not_a_server_error", operation: "getGadget", got: "no response", phase: "coverage" },
      ]),
    );
    expect(failures.filter((f) => f.got === "599" || f.got === "0")).toEqual([]);
    expect(r.ledger.failures.some((f) => f.check === "unsupported_method")).toBe(false);
    expect(JSON.stringify(r.ledger.failures)).not.toMatch(/599/);
    const listMessage = r.ledger.failures.find((f) => f.operation === "listGadgets" && f.check === "not_a_server_error")!.message;
    expect(listMessage).toMatch(/^no response \(no response within 1500 ms\), while the server still answers other requests$/);
    // No status was seen for what got no answer.
    for (const cov of r.ledger.coverage.values()) expect([...cov.statuses.keys()]).not.toContain(599);
  });

  test("a failure names a phase that ran, also on a request the suite sends to create a parent", async () => {
    // listMailboxMessages (/v1/mailboxes/{id}/messages) gets a live mailbox before its coverage
    // cases; the create of it answers 500 here. That request was labelled "stateful" in a run
    // that had no stateful phase.
    const f = await startPlatform((b) => ({ ...b, validate: (input) => (input.op.id === "createMailbox" ? { status: 500, body: { error: "boom", code: "internal_error" } } : b.validate(input)) }));
    try {
      const r = await run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: f.config, includeOperationId: ["listMailboxMessages"], phases: ["coverage"], checks: ["not_a_server_error"], maxExamples: 2, seed: 1 });
      const created = r.ledger.failures.filter((x) => x.operation === "createMailbox");
      expect(created.map(({ check, phase }) => ({ check, phase }))).toEqual([{ check: "not_a_server_error", phase: "coverage" }]);
    } finally {
      await f.server.close();
    }
  });
});
