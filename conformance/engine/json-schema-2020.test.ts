// Contracts outside the corpus: 2020-12 keywords of OpenAPI 3.1 contracts the generators did not draw from (decision
// CL13). A tuple (`prefixItems`, closed by `items: false`) was drawn from `items` alone, and an
// object whose only allowed names come from `patternProperties` under `minProperties` was drawn
// empty: no value passed re-validation, so the operation was skipped with a WARNING. Each schema
// here gets 200 draws, all of which must be valid.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { normalizeSchema } from "./schema-normalize.ts";
import { validate } from "./validator.ts";

const cases: [string, object][] = [
  ["closed tuple", { type: "array", prefixItems: [{ type: "integer", minimum: 1 }, { type: "string", enum: ["a", "b"] }], items: false, minItems: 2 }],
  ["tuple with a rest", { type: "array", prefixItems: [{ const: "head" }], items: { type: "boolean" }, minItems: 3, maxItems: 4 }],
  ["tuple shorter than its prefix allows", { type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }, { type: "integer" }], maxItems: 2 }],
  ["pattern names only", { type: "object", patternProperties: { "^x-[a-z]+$": { type: "string", minLength: 1 } }, additionalProperties: false, minProperties: 1 }],
  ["pattern names beside declared ones", { type: "object", properties: { id: { type: "integer" } }, required: ["id"], patternProperties: { "^tag_[0-9]+$": { type: "integer" } }, additionalProperties: false, minProperties: 3 }],
  ["minProperties over optional declared ones", { type: "object", properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" } }, additionalProperties: false, minProperties: 2 }],
];

describe("2020-12 keywords are drawn from, not only validated", () => {
  it.each(cases)("%s: every draw is valid", (_name, raw) => {
    const schema = normalizeSchema(raw);
    const values = fc.sample(arbitraryFor(schema), { seed: 1, numRuns: 200 });
    const invalid = values.filter((v) => !validate(schema, v).valid);
    expect(invalid.slice(0, 3)).toEqual([]);
  });
});
