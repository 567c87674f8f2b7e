// Issue 19 item 1 (Stripe ran out of memory at load) and item 9 (a `$ref` key inside an example was
// resolved as a reference): references are shared objects, cycles stay cycles, only schema
// positions are walked, and what is built is validated exactly. The synthetic contracts are the
// real constructs, distilled: Stripe's expandable fields (`anyOf: [{type: string}, {$ref}]`) and
// `x-expansionResources`, GitHub's SCIM group example.
import { describe, expect, it } from "vitest";
import { buildContract } from "./load-contract.ts";
import { validate } from "./validator.ts";

const doc = (schemas: Record<string, unknown>, body: { schema: unknown; examples?: unknown }, extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.0",
  info: { title: "t", version: "1" },
  paths: { "/things": { post: { operationId: "createThing", requestBody: { content: { "application/json": body } }, responses: { "200": { description: "ok", content: { "application/json": { schema: body.schema } } } } } } },
  components: { schemas, ...extra },
});

// r0 .. r29, each with two expandable fields pointing at the next: inlined as trees that is 2^30
// copies of r29 (the shape that made Stripe's checkout.session 4e8 nodes).
function expandableChain(n: number) {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? { anyOf: [{ type: "string", maxLength: 5000 }, { $ref: `#/components/schemas/r${i + 1}` }] } : { type: "integer" };
    schemas[`r${i}`] = { type: "object", required: ["id"], properties: { id: { type: "string" }, left: next, right: next } };
  }
  return schemas;
}

describe("shared references", () => {
  it("a component used in many places is one object, so a 2^30 expansion loads at once", () => {
    const contract = buildContract(doc(expandableChain(30), { schema: { $ref: "#/components/schemas/r0" } }));
    const op = contract.operations[0];
    const r0: any = op.body!.schema;
    expect(op.responses[0].content["application/json"].schema).toBe(r0);
    expect(r0.properties.left.anyOf[1]).toBe(r0.properties.right.anyOf[1]);
    let node = r0;
    for (let i = 0; i < 29; i++) node = node.properties.left.anyOf[1];
    expect(node.properties.left).toEqual({ type: "integer" });
    // and validation reaches the deepest level without expanding anything
    let value: any = { id: "x", left: 1, right: 2 };
    for (let i = 0; i < 29; i++) value = { id: "x", left: value, right: "ref" };
    expect(validate(r0, value).valid).toBe(true);
    let bad: any = { id: "x", left: "deep", right: 2 };
    for (let i = 0; i < 29; i++) bad = { id: "x", left: bad, right: "ref" };
    expect(validate(r0, bad).valid).toBe(false);
  });

  it("a recursive component is a cycle, validated at every depth (it used to be cut to 'anything')", () => {
    const schemas = { node: { type: "object", required: ["name"], properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/node" } } } } };
    const contract = buildContract(doc(schemas, { schema: { $ref: "#/components/schemas/node" } }));
    const node: any = contract.operations[0].body!.schema;
    expect(node.properties.children.items).toBe(node);
    const tree = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { name: "n", children: [tree(depth - 1, leaf)] });
    expect(validate(node, tree(6, { name: "leaf" })).valid).toBe(true);
    expect(validate(node, tree(6, { name: 42 })).valid).toBe(false);
    expect(contract.warnings).toEqual([]);
  });

  it("a cycle that never enters a property is cut, with a warning naming it", () => {
    const schemas = { loop: { anyOf: [{ type: "string" }, { $ref: "#/components/schemas/loop" }] } };
    const contract = buildContract(doc(schemas, { schema: { $ref: "#/components/schemas/loop" } }));
    expect(contract.warnings).toEqual([{ pointer: "#/components/schemas/loop/anyOf/1", message: expect.stringContaining("never enters a property") }]);
    expect(validate(contract.operations[0].body!.schema, "s").valid).toBe(true);
  });

  it("extensions and unused components are never visited", () => {
    const schemas: Record<string, unknown> = {
      charge: { type: "object", properties: { id: { type: "string" } }, "x-expansionResources": { oneOf: [{ $ref: "#/components/schemas/trap" }] } },
    };
    // Reading any key of `trap` throws: the loader must not walk into it.
    Object.defineProperty(schemas, "trap", { enumerable: true, get: () => new Proxy({}, { get: () => { throw new Error("walked into an extension"); }, ownKeys: () => { throw new Error("walked into an extension"); } }) });
    const contract = buildContract(doc(schemas, { schema: { $ref: "#/components/schemas/charge" } }));
    expect((contract.operations[0].body!.schema as any).properties.id).toEqual({ type: "string" });
  });

  it("built schemas are not the document's objects: the document is never changed", () => {
    const input = doc({ a: { type: "string", nullable: true } }, { schema: { $ref: "#/components/schemas/a" } });
    const before = JSON.stringify(input);
    const contract = buildContract(input);
    expect(contract.operations[0].body!.schema).toEqual({ type: ["string", "null"] });
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe("examples are data (item 9)", () => {
  it("a $ref key inside an example value stays a key (GitHub's scim-enterprise-group)", () => {
    const member = { value: "2819c223", $ref: "https://api.github.localhost/scim/v2/Users/2819c223", display: "Mona" };
    const contract = buildContract(
      doc(
        { group: { type: "object" } },
        { schema: { $ref: "#/components/schemas/group" }, examples: { default: { $ref: "#/components/examples/scim-enterprise-group" } } },
        { examples: { "scim-enterprise-group": { value: { displayName: "octo", members: [member] } } } },
      ),
    );
    expect(contract.operations[0].body!.examples).toEqual([{ displayName: "octo", members: [member] }]);
  });
});
