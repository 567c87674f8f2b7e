// Generation never hangs. `+` patterns with long exact lengths (GitHub's 40-character commit SHA)
// are met by construction; what still cannot be generated within the per-value budget throws
// GenerationBudgetExceeded naming the schema pointer, and a run reports it as a WARNING and goes
// on with the other operations.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRecordingServer, type RecordingServer } from "../fixtures/recording-server.ts";
import { positiveCaseArb } from "./case-arbitrary.ts";
import { GenerationBudgetExceeded } from "./generation-budget.ts";
import { buildContract } from "./load-contract.ts";
import { boundPattern } from "./pattern-bounds.ts";
import { run } from "./runner.ts";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { validate } from "./validator.ts";

describe("patterns with long lengths", () => {
  it.each([
    // code-scanning-analysis-commit-sha
    [{ type: "string", pattern: "^[0-9a-fA-F]+$", minLength: 40, maxLength: 40 }],
    [{ type: "string", pattern: "^[0-9a-fA-F]+$", minLength: 16 }],
    [{ type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$", minLength: 30, maxLength: 63 }],
    [{ type: "string", pattern: "^sk-[A-Za-z0-9]*$", minLength: 51, maxLength: 51 }],
    [{ type: "string", pattern: "[0-9a-f]+", minLength: 64, maxLength: 64 }],
    [{ type: "string", pattern: "^(?=.*[0-9])[a-z0-9]+$", minLength: 32, maxLength: 32 }],
  ])("%j generates valid values", (schema) => {
    const values = fc.sample(arbitraryFor(schema), { seed: 1, numRuns: 30 });
    expect(values).toHaveLength(30);
    for (const v of values) expect(validate(schema, v)).toEqual({ valid: true, errors: [] });
  });

  it("bounds unbounded repetitions to the lengths, and keeps the contract's own bounds", () => {
    expect(boundPattern("^[0-9a-fA-F]+$", 40, 40)).toBe("^[0-9a-fA-F]{40,40}$");
    expect(boundPattern("^\\d{3}-\\d+$", 16, 20)).toBe("^\\d{3}-\\d{12,16}$");
    expect(boundPattern("^[a-z]{2,5}$", 3, 4)).toBe("^[a-z]{2,5}$");
    expect(boundPattern("^(a|bc)*$", 0, 4)).toBe("^(a|bc){0,2}$");
  });
});

describe("unique arrays", () => {
  it("are generated when the items have enough values", () => {
    const schema = { type: "array", uniqueItems: true, minItems: 3, maxItems: 5, items: { enum: ["a", "b", "c", "d", "e"] } };
    for (const v of fc.sample(arbitraryFor(schema), { seed: 1, numRuns: 30 })) expect(validate(schema, v).valid).toBe(true);
  });

  it("end within the budget when they cannot be (two values, three items), naming the pointer", () => {
    const schema = { type: "array", uniqueItems: true, minItems: 3, items: { type: "boolean" } };
    expect(() => fc.sample(arbitraryFor(schema, { pointer: "#/x" }), { seed: 1, numRuns: 1 })).toThrow(new GenerationBudgetExceeded("#/x/uniqueItems", 500));
  });
});

describe("the generation budget", () => {
  // A pattern that allows 3 characters under a minLength of 10: nothing satisfies both.
  const impossible = { type: "string", pattern: "^[a-f]{3}$", minLength: 10 };
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/commits/{sha}": {
        get: {
          operationId: "getCommit",
          parameters: [{ name: "sha", in: "path", required: true, schema: { type: "string", pattern: "^[0-9a-fA-F]+$", minLength: 40, maxLength: 40 } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
      "/things": {
        post: {
          operationId: "createThing",
          requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["code"], properties: { code: impossible } } } } },
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  };

  it("names the schema pointer when a value cannot be generated", () => {
    const op = buildContract(doc).operations.find((o) => o.id === "createThing")!;
    let error: unknown;
    try {
      fc.sample(positiveCaseArb(op), { seed: 1, numRuns: 1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GenerationBudgetExceeded);
    expect((error as GenerationBudgetExceeded).pointer).toBe("#/paths/~1things/post/requestBody/content/application~1json/schema/properties/code/pattern");
  });

  describe("in a run", () => {
    let server: RecordingServer;
    let spec: string;
    beforeAll(async () => {
      server = await startRecordingServer();
      spec = path.join(await mkdtemp(path.join(tmpdir(), "budget-")), "openapi.json");
      await writeFile(spec, JSON.stringify(doc));
    });
    afterAll(() => server.close());

    it("warns with the pointer and goes on with the other operations", async () => {
      const result = await run({ spec, baseUrl: server.url, maxExamples: 10, seed: 1, mode: "positive", checks: ["not_a_server_error", "response_schema_conformance"] });
      const shas = server.requests.filter((r) => r.url.startsWith("/commits/")).map((r) => r.url.slice("/commits/".length));
      expect(shas.length).toBeGreaterThan(5);
      for (const sha of shas) expect(sha).toMatch(/^[0-9a-fA-F]{40}$/);
      expect(server.requests.some((r) => r.url === "/things")).toBe(false);
      expect(result.ledger.notices.length).toBeGreaterThan(0);
      for (const n of result.ledger.notices) expect(n).toMatch(/^createThing: .* #\/paths\/~1things\/post\/requestBody\/content\/application~1json\/schema\/properties\/code\/pattern /);
    });
  });
});
