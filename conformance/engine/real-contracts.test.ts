// The public contracts of issue 19 (conformance/fixtures/contracts/, gzipped) load, with references
// shared: Stripe's used to run out of memory after a minute (4.5 GB; every use of a component was a
// full copy, 8e9 nodes). No timing is asserted here; `npm run bench:contracts` measures.
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { RefResolver } from "./dereference.ts";
import { buildContract, loadContract } from "./load-contract.ts";
import { SchemaBuilder } from "./schema-normalize.ts";
import type { Contract } from "./types.ts";
import { unvalidatedReason, validate } from "./validator.ts";

const DIR = new URL("../fixtures/contracts/", import.meta.url).pathname;

/** Distinct schema objects reachable from the operations: what the loader really built. */
function schemaNodes(contract: Contract): number {
  const seen = new Set<object>();
  const walk = (n: any) => {
    if (!n || typeof n !== "object" || seen.has(n)) return;
    seen.add(n);
    for (const [k, v] of Object.entries(n)) if (!["enum", "const", "default", "examples"].includes(k)) walk(v);
  };
  for (const op of contract.operations) {
    walk(op.body?.schema);
    for (const p of op.parameters) walk(p.schema);
    for (const r of op.responses) for (const m of Object.values(r.content)) walk(m.schema);
  }
  return seen.size;
}

describe("Stripe 3.0.0 (2022-04-12 snapshot, 417 operations)", async () => {
  const contract = await loadContract(`${DIR}stripe-spec3.json.gz`);
  const op = (method: string, path: string) => contract.operations.find((o) => o.method === method && o.path === path)!;
  const ok = (method: string, path: string): any => op(method, path).responses.find((r) => r.status === "200")!.content["application/json"].schema;

  it("loads every operation with every reference shared", () => {
    expect(contract.operations).toHaveLength(417);
    expect(contract.warnings).toEqual([]);
    // checkout.session/properties/customer/anyOf/1 -> customer: the object the customer endpoints answer
    const customer = ok("POST", "/v1/customers/{customer}");
    expect(ok("GET", "/v1/checkout/sessions/{session}").properties.customer.anyOf[1]).toBe(customer);
    expect(ok("GET", "/v1/invoices/{invoice}").properties.customer.anyOf[1]).toBe(customer);
    // 18 thousand schema objects, where full copies were 8e9
    expect(schemaNodes(contract)).toBeLessThan(40_000);
  });

  it("validates through the shared graph, cycles included", () => {
    const customer = ok("POST", "/v1/customers/{customer}");
    expect(unvalidatedReason(customer)).toBeUndefined();
    expect(validate(customer, { id: "cus_1", object: "customer" }).valid).toBe(false); // required fields missing
  });
});

describe.each([
  ["github-api.github.com.json.gz", 874],
  ["twilio_api_v2010.json.gz", 197],
  ["openai-openapi.yaml.gz", 288],
])("%s", async (file, operations) => {
  it(`loads ${operations} operations without warnings`, async () => {
    const contract = await loadContract(`${DIR}${file}`);
    expect(contract.operations).toHaveLength(operations);
    expect(contract.warnings).toEqual([]);
  });
});

describe("OpenAI 3.1.0: the schemas ajv used to refuse are compiled (item 4)", () => {
  const doc = parseYaml(gunzipSync(readFileSync(`${DIR}openai-openapi.yaml.gz`)).toString("utf8"));
  const builder = new SchemaBuilder(new RefResolver(doc));
  const schema = (name: string) => builder.build({ $ref: `#/components/schemas/${name}` }, "#");

  it.each(["CompoundFilter", "ContainerResource", "FineTuneDPOHyperparameters", "CreateImageRequest", "CreateChatCompletionRequest"])("%s", (name) => {
    expect(unvalidatedReason(schema(name))).toBeUndefined();
  });

  it("CompoundFilter's $recursiveRef is the filter itself, at any depth", () => {
    const filter = schema("CompoundFilter");
    const leaf = { type: "eq", key: "k", value: "v" };
    const nested = { type: "and", filters: [leaf, { type: "or", filters: [leaf, { type: "and", filters: [leaf] }] }] };
    expect(validate(filter, nested).valid).toBe(true);
    expect(validate(filter, { type: "and", filters: [leaf, { type: "or", filters: [{ type: "xor", filters: [] }] }] }).valid).toBe(false);
  });

  it("the boolean exclusiveMinimum of 3.0 keeps its meaning in a 3.1 document", () => {
    const dpo = schema("FineTuneDPOHyperparameters");
    expect(validate(dpo, { beta: 0.5 }).valid).toBe(true);
    expect(validate(dpo, { beta: 0 }).valid).toBe(false);
    expect(validate(dpo, { beta: 2 }).valid).toBe(true);
  });
});

it("the contract's document is not modified by loading (shared use is read-only)", () => {
  const text = gunzipSync(readFileSync(`${DIR}twilio_api_v2010.json.gz`)).toString("utf8");
  const doc = JSON.parse(text);
  buildContract(doc);
  expect(JSON.stringify(doc)).toBe(JSON.stringify(JSON.parse(text)));
});
