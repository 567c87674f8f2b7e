// Issue 39 item 7: `replay` judges a failure as the run did. It guessed a case's mode from the
// failure's message, and a server's `invalid_request` body in "valid input refused with 400: ..."
// made it a negative case, so the very same 400 came back "FIXED".
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, runOn } from "./fixtures/run-on.ts";
import { startRecordingServer, type Answer } from "./fixtures/recording-server.ts";
import { jsonReport } from "./reports/json.ts";
import { replay } from "./replay.ts";

const doc = {
  openapi: "3.1.0",
  info: { title: "replay", version: "1" },
  paths: {
    "/things": {
      post: {
        operationId: "createThing",
        requestBody: { required: true, content: json({ type: "object", required: ["name"], properties: { name: { type: "string", maxLength: 8 } } }) },
        responses: { "201": { description: "made", content: json({ type: "object" }) }, "400": { description: "bad", content: json({ type: "object" }) } },
      },
    },
  },
};

afterEach(() => vi.restoreAllMocks());

async function replayed(answerNow: Answer) {
  const refuses: Answer = () => ({ status: 400, body: { error: "invalid body", code: "invalid_request" } });
  const { result, spec, failures } = await runOn(doc, refuses, { checks: ["positive_data_acceptance"], mode: "positive", phases: ["coverage"] });
  expect(failures).toEqual([expect.stringMatching(/^positive_data_acceptance createThing: valid input refused with 400: .*invalid_request/)]);
  const server = await startRecordingServer(answerNow);
  const dir = await mkdtemp(path.join(tmpdir(), "replay-"));
  const file = path.join(dir, "report.json");
  await writeFile(file, JSON.stringify(jsonReport(result, { spec, baseUrl: new URL(result.ledger.failures[0].request.url).origin })));
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void lines.push(a.join(" ")));
  try {
    const code = await replay(file, server.url);
    return { code, out: lines.join("\n") };
  } finally {
    await server.close();
  }
}

describe("replay", () => {
  it("the same 400 with an `invalid_request` body is STILL FAILING, not FIXED", async () => {
    const { code, out } = await replayed(() => ({ status: 400, body: { error: "invalid body", code: "invalid_request" } }));
    expect(out).toMatch(/^STILL FAILING positive_data_acceptance createThing: now 400/m);
    expect(code).toBe(1);
  });

  it("a server that now accepts the request is FIXED", async () => {
    const { code, out } = await replayed(() => ({ status: 201, body: {} }));
    expect(out).toMatch(/^FIXED positive_data_acceptance createThing: now 201/m);
    expect(code).toBe(0);
  });
});
