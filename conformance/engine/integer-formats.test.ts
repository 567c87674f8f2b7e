// Integer formats at their edges (issue 29 item 10): the generators draw int32 and int64 minimum
// and maximum, one past each, 2^53 + 1 and very large numbers, in positive, negative and edge
// cases, where they used to draw from [minimum, 1,000,000] only.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { positiveCaseArb } from "./case-arbitrary.ts";
import { coverageCases } from "./coverage.ts";
import { buildContract } from "./load-contract.ts";
import { negativeCaseArb } from "./mutations.ts";
import { prepareRequest } from "./request.ts";
import { validate } from "./validator.ts";

const contract = buildContract({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/items": {
      get: {
        operationId: "listItems",
        parameters: [
          { name: "offset", in: "query", schema: { type: "integer", format: "int32", minimum: 0 } },
          { name: "cursor", in: "query", schema: { type: "integer", format: "int64" } },
        ],
        responses: { "200": { description: "ok" } },
      },
      post: {
        operationId: "createItem",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["size"], properties: { size: { type: "integer", format: "int64", minimum: 0 } } } } } },
        responses: { "200": { description: "ok" } },
      },
    },
  },
});
const list = contract.operations.find((o) => o.id === "listItems")!;
const create = contract.operations.find((o) => o.id === "createItem")!;

describe("coverage phase", () => {
  const cases = coverageCases(list, "all", 1);
  const values = (mode: string, name: string) => cases.filter((c) => c.mode === mode && c.query[name] !== undefined).map((c) => c.query[name]);

  it("positive cases reach the int32 maximum and the exact ends of int64", () => {
    expect(values("positive", "offset")).toContain(2147483647);
    expect(values("positive", "cursor")).toEqual(expect.arrayContaining([9007199254740991, -9007199254740991]));
  });

  it("negative cases go one past int32 and far past int64", () => {
    const offsets = cases.filter((c) => c.mode === "negative" && /offset/.test(c.mutation ?? "")).map((c) => [c.mutation, c.query.offset]);
    expect(offsets).toEqual(expect.arrayContaining([
      [expect.stringMatching(/above the int32 maximum/), 2147483648],
      [expect.stringMatching(/a very large number/), 1e20],
    ]));
    const cursors = cases.filter((c) => c.mode === "negative" && /cursor/.test(c.mutation ?? "")).map((c) => c.query.cursor);
    expect(cursors).toEqual(expect.arrayContaining([2 ** 64, -(2 ** 64), 1e20]));
  });

  it("int64 values a double cannot hold go out as exact digits, as edge cases", () => {
    const edges = cases.filter((c) => c.mode === "edge");
    const urls = edges.map((c) => prepareRequest("http://127.0.0.1:1", list, c, {}).url);
    expect(urls).toEqual(expect.arrayContaining([
      expect.stringContaining("cursor=9007199254740993"),
      expect.stringContaining("cursor=9223372036854775807"),
      expect.stringContaining("cursor=-9223372036854775808"),
    ]));
    // In a body: a JSON number with every digit, not a string and not a rounded double.
    const bodies = coverageCases(create, "positive", 1).filter((c) => c.mode === "edge").map((c) => prepareRequest("http://127.0.0.1:1", create, c, {}).body);
    expect(bodies).toEqual(expect.arrayContaining([expect.stringMatching(/"size":9223372036854775807[,}]/), expect.stringMatching(/"size":9007199254740993[,}]/)]));
    // No minimum-less edge where the schema has a minimum.
    expect(bodies.some((b) => b?.includes("-9223372036854775808"))).toBe(false);
  });
});

describe("fuzzing phase", () => {
  it("positive draws of an unbounded int32 cover its whole range, ends included", () => {
    const offsets = fc.sample(positiveCaseArb(list), { seed: 1, numRuns: 300 }).map((c) => c.query.offset).filter((v): v is number => typeof v === "number");
    expect(offsets.some((v) => v > 1_000_000)).toBe(true);
    for (const v of offsets) expect(validate({ type: "integer", format: "int32", minimum: 0 }, v).valid).toBe(true);
  });

  it("negative draws include values past the formats' ends", () => {
    const arb = negativeCaseArb(list)!;
    const mutations = new Set(fc.sample(arb, { seed: 1, numRuns: 400 }).map((c) => c.mutation));
    expect([...mutations]).toEqual(expect.arrayContaining([expect.stringMatching(/offset.*above the int32 maximum/), expect.stringMatching(/cursor.*above the int64 maximum/)]));
  });
});

describe("the suite's own int64 check", () => {
  it("accepts the int64 maximum as a response carries it (parsed to 2^63), refuses 2^64", () => {
    expect(validate({ type: "integer", format: "int64" }, JSON.parse("9223372036854775807")).valid).toBe(true);
    expect(validate({ type: "integer", format: "int64" }, 2 ** 64).valid).toBe(false);
  });
});
