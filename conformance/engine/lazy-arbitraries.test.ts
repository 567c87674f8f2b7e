// Issue 19, Stripe's smoke run peaking at 3.2 GB: arbitraries were built eagerly to the generator's
// depth over the shared, cyclic schema graph, so one response cost the whole graph to depth 6
// (a second and 90 MB for checkout.session). Built on first draw, the work follows what is drawn:
// the counts below are schema nodes turned into arbitraries, not times.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildContract, loadContract } from "./load-contract.ts";
import { arbitrariesBuilt, arbitraryFor } from "./schema-arbitrary.ts";
import { validate } from "./validator.ts";

const DIR = new URL("../fixtures/contracts/", import.meta.url).pathname;

/** JSON values in a value: each one needs at most its own node and one branch choice built. */
function nodes(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + nodes(x), 0);
  if (v && typeof v === "object") return 1 + Object.values(v).reduce((n: number, x) => n + nodes(x), 0);
  return 1;
}

/** The value with the nulls the depth cut leaves removed. */
function cutNulls(v: unknown): unknown {
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, cutNulls(x)]));
}

/** node: an object whose 8 optional properties are each `anyOf: [string, node]`: to depth 6 eagerly, 8^6 x 2 arbitraries */
function cyclicContract() {
  const expandable = { anyOf: [{ type: "string", maxLength: 8 }, { $ref: "#/components/schemas/node" }] };
  const properties = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`p${i}`, expandable]));
  const doc = {
    openapi: "3.0.0",
    info: { title: "t", version: "1" },
    paths: { "/nodes": { get: { operationId: "getNode", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/node" } } } } } } } },
    components: { schemas: { node: { type: "object", properties } } },
  };
  return buildContract(doc);
}

describe("arbitraries over shared, cyclic schemas", () => {
  it("building one costs a node; drawing costs what is drawn, and values stay valid and seeded", () => {
    const schema = cyclicContract().operations[0].responses[0].content["application/json"].schema!;
    const before = arbitrariesBuilt();
    const arb = arbitraryFor(schema);
    expect(arbitrariesBuilt() - before).toBe(1);
    const values = fc.sample(arb, { seed: 7, numRuns: 2 });
    const drawn = values.reduce((n: number, v) => n + nodes(v), 0);
    // each drawn JSON value: its schema node, plus the anyOf holding it; built once per position
    expect(arbitrariesBuilt() - before).toBeLessThanOrEqual(2 * drawn + 1);
    // below MAX_DEPTH a value is cut to null, as before; callers re-validate. Above it, valid:
    for (const v of values) expect(validate(schema, cutNulls(v)).valid).toBe(true);
    expect(fc.sample(arbitraryFor(schema), { seed: 7, numRuns: 2 })).toEqual(values);
  });

  it("Stripe's checkout.session response draws without building its graph", async () => {
    const contract = await loadContract(`${DIR}stripe-spec3.json.gz`);
    const op = contract.operations.find((o) => o.method === "GET" && o.path === "/v1/checkout/sessions/{session}")!;
    const schema = op.responses.find((r) => r.status === "200")!.content["application/json"].schema!;
    const before = arbitrariesBuilt();
    const [value] = fc.sample(arbitraryFor(schema), { seed: 1, numRuns: 1 });
    expect(arbitrariesBuilt() - before).toBeLessThanOrEqual(2 * nodes(value) + 1);
    expect(arbitrariesBuilt() - before).toBeLessThan(20_000);
  });
});
