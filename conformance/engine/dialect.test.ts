// Issue 19 item 4: ajv refused 60 of OpenAI's 1,151 schemas and the suite then called everything
// valid, silently. Each construct, distilled: what the dialect allows is normalised, so the schema
// is compiled and an invalid value is refused.
import { describe, expect, it } from "vitest";
import { buildContract } from "./load-contract.ts";
import { unvalidatedReason, validate } from "./validator.ts";

function bodySchema(schemas: Record<string, unknown>, openapi = "3.1.0") {
  const contract = buildContract({
    openapi,
    info: { title: "t", version: "1" },
    paths: { "/x": { post: { operationId: "x", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Body" } } } }, responses: { "204": { description: "ok" } } } } },
    components: { schemas },
  });
  return contract.operations[0].body!.schema;
}

describe("dialect normalisation", () => {
  it("`nullable` without `type` in a 3.1 document (CreateImageRequest/properties/size)", () => {
    const s = bodySchema({ Body: { type: "object", properties: { size: { anyOf: [{ type: "string", enum: ["256x256", "1024x1024"] }, { type: "string" }], nullable: true, default: "1024x1024" }, model: { nullable: true, oneOf: [{ type: "string" }, { type: "integer" }] } } } });
    expect(unvalidatedReason(s)).toBeUndefined();
    expect(validate(s, { size: null, model: null }).valid).toBe(true);
    expect(validate(s, { size: 12 }).valid).toBe(false);
    expect(validate(s, { model: true }).valid).toBe(false);
  });

  it("a boolean exclusiveMinimum (3.0 idiom) in a 3.1 document", () => {
    const s = bodySchema({ Body: { type: "object", properties: { beta: { type: "number", minimum: 0, maximum: 2, exclusiveMinimum: true } } } });
    expect(unvalidatedReason(s)).toBeUndefined();
    expect(validate(s, { beta: 0 }).valid).toBe(false);
    expect(validate(s, { beta: 0.1 }).valid).toBe(true);
  });

  it("a duplicate `required` entry (ContainerResource)", () => {
    const s = bodySchema({ Body: { type: "object", required: ["id", "object", "id"], properties: { id: { type: "string" }, object: { type: "string" } } } });
    expect(unvalidatedReason(s)).toBeUndefined();
    expect(validate(s, { object: "container" }).valid).toBe(false);
  });

  it("$recursiveAnchor / $recursiveRef (2019-09) resolve to the enclosing schema", () => {
    const s = bodySchema({
      Leaf: { type: "object", required: ["key"], properties: { key: { type: "string" } } },
      Body: { $recursiveAnchor: true, type: "object", additionalProperties: false, required: ["type", "filters"], properties: { type: { enum: ["and", "or"] }, filters: { type: "array", items: { oneOf: [{ $ref: "#/components/schemas/Leaf" }, { $recursiveRef: "#" }] } } } },
    });
    expect(unvalidatedReason(s)).toBeUndefined();
    expect(validate(s, { type: "and", filters: [{ key: "a" }, { type: "or", filters: [{ key: "b" }] }] }).valid).toBe(true);
    expect(validate(s, { type: "and", filters: [{ type: "or", filters: [{ type: "nand", filters: [] }] }] }).valid).toBe(false);
  });

  it("`nullable` with an enum admits null (3.0)", () => {
    const s = bodySchema({ Body: { type: "string", enum: ["a", "b"], nullable: true } }, "3.0.3");
    expect(validate(s, null).valid).toBe(true);
    expect(validate(s, "c").valid).toBe(false);
  });
});
