// Integer bounds beyond 2^53 (OpenAI's CreateChatCompletionRequest seed: ±9223372036854776000)
// must not hang generation: values come from the safe range inside the bounds. Every generator
// path meets such bounds: numbers, multipleOf, parameters, coverage boundaries and mutations.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { positiveCaseArb } from "./case-arbitrary.ts";
import { coverageCases } from "./coverage.ts";
import { buildContract } from "./load-contract.ts";
import { negativeCaseArb } from "./mutations.ts";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { validate } from "./validator.ts";

const INT64 = 9223372036854776000;

describe("integers beyond 2^53", () => {
  it.each([
    [{ type: "integer", minimum: -INT64, maximum: INT64 }],
    [{ type: "integer", minimum: 9007199254740000, maximum: INT64 }],
    [{ type: "integer", maximum: -9007199254740000, minimum: -INT64 }],
    [{ type: "integer", minimum: -INT64, maximum: INT64, multipleOf: 7 }],
    [{ type: "integer", exclusiveMinimum: -INT64, exclusiveMaximum: INT64 }],
    [{ type: "number", minimum: -INT64, maximum: INT64 }],
    [{ type: "number", minimum: -INT64, maximum: INT64, multipleOf: 0.5 }],
    [{ type: ["integer", "null"], minimum: -INT64, maximum: INT64 }],
  ])("generate valid values for %j", (schema) => {
    const values = fc.sample(arbitraryFor(schema), { seed: 1, numRuns: 50 });
    expect(values).toHaveLength(50);
    for (const v of values) {
      if (v !== null && (schema.type === "integer" || Array.isArray(schema.type))) expect(Number.isSafeInteger(v)).toBe(true);
      expect(validate(schema, v).valid).toBe(true);
    }
  });

  const contract = buildContract({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/chat/completions": {
        post: {
          operationId: "createChatCompletion",
          parameters: [{ name: "seed", in: "query", schema: { type: "integer", minimum: -INT64, maximum: INT64 } }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { allOf: [{ type: "object" }, { type: "object", required: ["seed"], properties: { seed: { type: "integer", minimum: -INT64, maximum: INT64, nullable: true } } }] } } },
          },
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const op = contract.operations[0];

  it("cases, coverage boundaries and negative cases of such an operation are generated", () => {
    const cases = fc.sample(positiveCaseArb(op), { seed: 3, numRuns: 20 });
    expect(cases).toHaveLength(20);
    const coverage = coverageCases(op, "all", 3);
    expect(coverage.some((c) => c.mode === "positive")).toBe(true);
    expect(coverage.some((c) => c.mode === "negative")).toBe(true);
    const negative = negativeCaseArb(op)!;
    expect(fc.sample(negative, { seed: 3, numRuns: 20 }).every((c) => c.mode === "negative")).toBe(true);
  });
});
