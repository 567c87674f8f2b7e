// One pair of tiny contracts per rule, both verdicts where the rule has two: the gate must name
// the rule and the pointer, and call it breaking or compatible as decision V1 says.
import { describe, expect, it } from "vitest";
import { compareContracts } from "./compare.ts";

type Doc = Record<string, any>;

const base = (): Doc => ({
  openapi: "3.0.3",
  info: { title: "t", version: "1.0.0" },
  paths: {
    "/v1/things": {
      get: {
        operationId: "listThings",
        "x-platform-scope": "a:read",
        parameters: [{ name: "limit", in: "query", required: false, schema: { type: "integer", maximum: 100 } }],
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" }, examples: { one: { value: { id: "t1", status: "a" } } } } } },
          "404": { description: "not found" },
        },
      },
      post: {
        operationId: "createThing",
        "x-platform-scope": "a:write",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewThing" } } } },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } } } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: "object",
        required: ["id", "status"],
        properties: {
          id: { type: "string" },
          status: { type: "string", enum: ["a", "b"] },
          code: { type: "string", enum: ["x"], "x-extensible-enum": true },
          size: { type: "integer" },
        },
      },
      NewThing: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string", pattern: "^[a-z]+$", maxLength: 40 },
          kind: { type: "string", enum: ["x", "y"] },
          note: { type: "string" },
        },
      },
    },
  },
  "x-webhooks": {
    "thing.done": {
      post: {
        operationId: "onThingDone",
        requestBody: { content: { "application/json": { schema: { type: "object", required: ["id"], properties: { id: { type: "string" }, at: { type: "string" } } } } } },
        responses: { "200": { description: "ok" } },
      },
    },
  },
});

const things = (d: Doc) => d.components.schemas;
const get = (d: Doc) => d.paths["/v1/things"].get;
const post = (d: Doc) => d.paths["/v1/things"].post;

// [rule, verdict, change, a pointer the finding must name]
const cases: [string, "breaking" | "compatible", (d: Doc) => void, string][] = [
  ["operation-removed", "breaking", (d) => delete d.paths["/v1/things"].post, "/paths/~1v1~1things/post"],
  ["operation-added", "compatible", (d) => (d.paths["/v1/other"] = { get: { operationId: "o", responses: { "200": { description: "ok" } } } }), "/paths/~1v1~1other/get"],
  ["scope-changed", "breaking", (d) => (get(d)["x-platform-scope"] = "b:read"), "/paths/~1v1~1things/get/x-platform-scope"],
  ["response-status-removed", "breaking", (d) => delete get(d).responses["404"], "/paths/~1v1~1things/get/responses/404"],
  ["response-status-added", "compatible", (d) => (get(d).responses["409"] = { description: "conflict" }), "/paths/~1v1~1things/get/responses/409"],
  ["request-content-type-removed", "breaking", (d) => { const c = post(d).requestBody.content; c["text/plain"] = c["application/json"]; delete c["application/json"]; }, "/paths/~1v1~1things/post/requestBody/content/application~1json"],
  ["response-content-type-removed", "breaking", (d) => { const c = get(d).responses["200"].content; c["text/csv"] = c["application/json"]; delete c["application/json"]; }, "/paths/~1v1~1things/get/responses/200/content/application~1json"],
  ["content-type-added", "compatible", (d) => (post(d).requestBody.content["application/x-www-form-urlencoded"] = { schema: { type: "object" } }), "/paths/~1v1~1things/post/requestBody/content/application~1x-www-form-urlencoded"],
  ["response-property-removed", "breaking", (d) => delete things(d).Thing.properties.size, "/paths/~1v1~1things/get/responses/200/content/application~1json/schema/properties/size"],
  ["response-property-added", "compatible", (d) => (things(d).Thing.properties.extra = { type: "string" }), "/paths/~1v1~1things/get/responses/200/content/application~1json/schema/properties/extra"],
  ["response-property-became-optional", "breaking", (d) => (things(d).Thing.required = ["id"]), "/paths/~1v1~1things/get/responses/200/content/application~1json/schema/required/1"],
  ["response-enum-value-added", "breaking", (d) => things(d).Thing.properties.status.enum.push("c"), "/paths/~1v1~1things/get/responses/200/content/application~1json/schema/properties/status/enum/2"],
  ["response-extensible-enum-value-added", "compatible", (d) => things(d).Thing.properties.code.enum.push("y"), "/paths/~1v1~1things/get/responses/200/content/application~1json/schema/properties/code/enum/1"],
  ["request-enum-value-removed", "breaking", (d) => (things(d).NewThing.properties.kind.enum = ["x"]), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/kind/enum/1"],
  ["request-enum-value-added", "compatible", (d) => things(d).NewThing.properties.kind.enum.push("z"), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/kind/enum/2"],
  ["request-property-became-required", "breaking", (d) => things(d).NewThing.required.push("note"), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/required/1"],
  ["request-property-added", "breaking", (d) => { things(d).NewThing.properties.z = { type: "string" }; things(d).NewThing.required.push("z"); }, "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/z"],
  ["request-property-added", "compatible", (d) => (things(d).NewThing.properties.z = { type: "string" }), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/z"],
  ["request-parameter-became-required", "breaking", (d) => (get(d).parameters[0].required = true), "/paths/~1v1~1things/get/parameters/0/required"],
  ["request-parameter-added", "breaking", (d) => get(d).parameters.push({ name: "q", in: "query", required: true, schema: { type: "string" } }), "/paths/~1v1~1things/get/parameters/1"],
  ["request-parameter-added", "compatible", (d) => get(d).parameters.push({ name: "q", in: "query", required: false, schema: { type: "string" } }), "/paths/~1v1~1things/get/parameters/1"],
  ["type-changed", "breaking", (d) => (things(d).NewThing.properties.note.type = "integer"), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/note/type"],
  ["pattern-changed", "breaking", (d) => (things(d).NewThing.properties.name.pattern = "^[a-z]{2,}$"), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/name/pattern"],
  ["max-length-changed", "breaking", (d) => (things(d).NewThing.properties.name.maxLength = 20), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/name/maxLength"],
  ["max-length-changed", "compatible", (d) => (things(d).NewThing.properties.name.maxLength = 60), "/paths/~1v1~1things/post/requestBody/content/application~1json/schema/properties/name/maxLength"],
  ["maximum-changed", "breaking", (d) => (get(d).parameters[0].schema.maximum = 50), "/paths/~1v1~1things/get/parameters/0/schema/maximum"],
  ["maximum-changed", "compatible", (d) => (get(d).parameters[0].schema.maximum = 500), "/paths/~1v1~1things/get/parameters/0/schema/maximum"],
  ["example-changed", "compatible", (d) => (get(d).responses["200"].content["application/json"].examples.one.value.size = 3), "/paths/~1v1~1things/get/responses/200/content/application~1json/examples/one/value/size"],
  ["example-changed", "compatible", (d) => (get(d).responses["200"].content["application/json"].examples.one.value.status = "b"), "/paths/~1v1~1things/get/responses/200/content/application~1json/examples/one/value/status"],
  ["response-property-removed", "breaking", (d) => delete d["x-webhooks"]["thing.done"].post.requestBody.content["application/json"].schema.properties.at, "/paths/~1x-webhooks~1thing.done/post/responses/200/content/application~1json/schema/properties/at"],
  ["response-property-added", "compatible", (d) => (d["x-webhooks"]["thing.done"].post.requestBody.content["application/json"].schema.properties.more = { type: "string" }), "/paths/~1x-webhooks~1thing.done/post/responses/200/content/application~1json/schema/properties/more"],
];

describe("compatibility rules (decision V1)", () => {
  it.each(cases)("%s is %s", (rule, verdict, change, pointer) => {
    const after = base();
    change(after);
    const findings = compareContracts(base(), after);
    expect(findings.find((f) => f.pointer === pointer), JSON.stringify(findings, null, 1)).toMatchObject({ rule, verdict, pointer });
    // A compatible change brings no breaking finding along with it.
    if (verdict === "compatible") expect(findings.filter((f) => f.verdict === "breaking")).toEqual([]);
  });

  it("an unchanged contract has no findings, descriptions are not changes", () => {
    const after = base();
    get(after).description = "now documented";
    expect(compareContracts(base(), base())).toEqual([]);
    expect(compareContracts(base(), after)).toEqual([]);
  });
});
