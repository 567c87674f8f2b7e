// Integer bounds beyond 2^53 (OpenAI's CreateChatCompletionRequest seed: ±9223372036854776000)
// must not hang generation: values come from the safe range inside the bounds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { validate } from "./validator.ts";

describe("integers beyond 2^53", () => {
  it.each([
    [{ type: "integer", minimum: -9223372036854776000, maximum: 9223372036854776000 }],
    [{ type: "integer", minimum: 9007199254740000, maximum: 9223372036854776000 }],
    [{ type: "integer", maximum: -9007199254740000, minimum: -9223372036854776000 }],
  ])("generate valid values for %j", (schema) => {
    const values = fc.sample(arbitraryFor(schema), { seed: 1, numRuns: 50 });
    expect(values).toHaveLength(50);
    for (const v of values) {
      expect(Number.isSafeInteger(v)).toBe(true);
      expect(validate(schema, v).valid).toBe(true);
    }
  });
});
