// Bodies that are one of several schemas (oneOf/anyOf, as the DNS record body is): coverage and
// negative cases reach the constraints of every branch, and what they produce stays honest (coverage
// cases valid, negative cases invalid). Before, only top-level properties were walked, so a
// discriminated body got no branch-specific negative cases at all.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { caseIsValid } from "./case-arbitrary.ts";
import { coverageCases } from "./coverage.ts";
import { buildContract } from "./load-contract.ts";
import { mutationsFor, negativeCaseArb } from "./mutations.ts";

const record = (type: string, data: object, extra: object = {}, required: string[] = []) => ({
  type: "object",
  required: ["type", "data", ...required],
  properties: { type: { type: "string", enum: [type] }, data: data, ...extra },
});
const contract = buildContract({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/records": {
      post: {
        operationId: "createRecord",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                oneOf: [
                  record("A", { type: "string", pattern: "^\\d{1,3}(\\.\\d{1,3}){3}$" }),
                  record("MX", { type: "string", pattern: "^[a-z]+(\\.[a-z]+)+$" }, { priority: { type: "integer", minimum: 0, maximum: 65535 } }, ["priority"]),
                ],
                discriminator: { propertyName: "type" },
              },
            },
          },
        },
        responses: { "200": { description: "ok" } },
      },
    },
  },
});
const op = contract.operations[0];

describe("oneOf bodies", () => {
  it("mutations come from every branch", () => {
    const descriptions = mutationsFor(op).map((m) => m.description);
    expect(descriptions).toContain("body /data: does not match pattern ^\\d{1,3}(\\.\\d{1,3}){3}$");
    expect(descriptions).toContain("body /data: does not match pattern ^[a-z]+(\\.[a-z]+)+$");
    expect(descriptions).toContain("body: required property priority missing");
    expect(descriptions).toContain("body /priority: above maximum 65535");
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it("negative cases are invalid and include branch constraints", () => {
    const arb = negativeCaseArb(op)!;
    const cases = fc.sample(arb, { seed: 3, numRuns: 200 });
    expect(cases.every((c) => !caseIsValid(op, c))).toBe(true);
    const used = new Set(cases.map((c) => c.mutation));
    expect([...used].some((m) => m?.includes("does not match pattern"))).toBe(true);
    expect([...used].some((m) => m?.includes("priority"))).toBe(true);
  });

  it("coverage cases are valid and reach a branch's boundaries", () => {
    const all = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((seed) => coverageCases(op, "positive", seed));
    expect(all.every((c) => caseIsValid(op, c))).toBe(true);
    expect(all.some((c) => (c.body as { priority?: number }).priority === 65535)).toBe(true);
  });
});
