// One pair of tiny contracts per rule, both directions where the rule has two: the gate must name
// the rule and the pointer, at the level the catalogue (rules.ts) and decision V1 give it.
import { describe, expect, it } from "vitest";
import { changelogSection } from "./changelog.ts";
import { compareDocuments } from "./compare.ts";
import type { Level } from "./rules.ts";

type Doc = Record<string, any>;

const base = (): Doc => ({
  openapi: "3.0.3",
  info: { title: "t", version: "1.0.0" },
  paths: {
    "/v1/things": {
      get: {
        operationId: "listThings",
        "x-platform-scope": "a:read",
        parameters: [
          {
            name: "limit",
            in: "query",
            required: false,
            schema: { type: "integer", maximum: 100 },
          },
        ],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
          "404": { description: "not found" },
        },
      },
      post: {
        operationId: "createThing",
        "x-platform-scope": "a:write",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/NewThing" } } },
        },
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: { type: "object", properties: { id: { type: "string" } } },
              },
            },
          },
        },
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
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["id"],
                properties: { id: { type: "string" }, at: { type: "string" } },
              },
            },
          },
        },
        responses: { "200": { description: "ok" } },
      },
    },
  },
});

const things = (d: Doc) => d.components.schemas;
const get = (d: Doc) => d.paths["/v1/things"].get;
const post = (d: Doc) => d.paths["/v1/things"].post;
const hook = (d: Doc) =>
  d["x-webhooks"]["thing.done"].post.requestBody.content["application/json"].schema;
const getBody = "/paths/~1v1~1things/get/responses/200/content/application~1json/schema";
const postBody = "/paths/~1v1~1things/post/requestBody/content/application~1json/schema";
const hookBody = "/x-webhooks/thing.done/post/requestBody/content/application~1json/schema";

// [rule id, level, change, the pointer the finding names]
const cases: [string, Level, (d: Doc) => void, string][] = [
  [
    "api-removed-without-deprecation",
    "ERR",
    (d) => delete d.paths["/v1/things"].post,
    "/paths/~1v1~1things/post",
  ],
  [
    "endpoint-added",
    "INFO",
    (d) =>
      (d.paths["/v1/other"] = {
        get: { operationId: "o", responses: { "200": { description: "ok" } } },
      }),
    "/paths/~1v1~1other/get",
  ],
  [
    "platform-scope-changed",
    "ERR",
    (d) => (get(d)["x-platform-scope"] = "b:read"),
    "/paths/~1v1~1things/get/x-platform-scope",
  ],
  [
    "response-non-success-status-removed",
    "ERR",
    (d) => delete get(d).responses["404"],
    "/paths/~1v1~1things/get/responses/404",
  ],
  [
    "response-non-success-status-added",
    "INFO",
    (d) => (get(d).responses["409"] = { description: "conflict" }),
    "/paths/~1v1~1things/get/responses/409",
  ],
  [
    "request-body-media-type-removed",
    "ERR",
    (d) => {
      const c = post(d).requestBody.content;
      c["text/plain"] = c["application/json"];
      delete c["application/json"];
    },
    "/paths/~1v1~1things/post/requestBody/content/application~1json",
  ],
  [
    "response-media-type-removed",
    "ERR",
    (d) => {
      const c = get(d).responses["200"].content;
      c["text/csv"] = c["application/json"];
      delete c["application/json"];
    },
    "/paths/~1v1~1things/get/responses/200/content/application~1json",
  ],
  [
    "request-body-media-type-added",
    "INFO",
    (d) =>
      (post(d).requestBody.content["application/x-www-form-urlencoded"] = {
        schema: { type: "object" },
      }),
    "/paths/~1v1~1things/post/requestBody/content/application~1x-www-form-urlencoded",
  ],
  [
    "response-property-removed-required",
    "ERR",
    (d) => {
      delete things(d).Thing.properties.status;
      things(d).Thing.required = ["id"];
    },
    `${getBody}/properties/status`,
  ],
  [
    "response-property-removed-optional",
    "WARN",
    (d) => delete things(d).Thing.properties.size,
    `${getBody}/properties/size`,
  ],
  [
    "response-property-added-optional",
    "INFO",
    (d) => (things(d).Thing.properties.extra = { type: "string" }),
    `${getBody}/properties/extra`,
  ],
  [
    "response-property-became-optional",
    "ERR",
    (d) => (things(d).Thing.required = ["id"]),
    `${getBody}/properties/status`,
  ],
  [
    "response-property-enum-value-added",
    "ERR",
    (d) => things(d).Thing.properties.status.enum.push("c"),
    `${getBody}/properties/status`,
  ],
  [
    "response-property-extensible-enum-value-added",
    "INFO",
    (d) => things(d).Thing.properties.code.enum.push("y"),
    `${getBody}/properties/code`,
  ],
  [
    "response-property-type-generalized",
    "ERR",
    (d) => (things(d).Thing.properties.size.type = "number"),
    `${getBody}/properties/size`,
  ],
  [
    "response-property-became-nullable",
    "ERR",
    (d) => (things(d).Thing.properties.size.nullable = true),
    `${getBody}/properties/size`,
  ],
  [
    "request-property-enum-value-removed",
    "ERR",
    (d) => (things(d).NewThing.properties.kind.enum = ["x"]),
    `${postBody}/properties/kind`,
  ],
  [
    "request-property-enum-value-added",
    "INFO",
    (d) => things(d).NewThing.properties.kind.enum.push("z"),
    `${postBody}/properties/kind`,
  ],
  [
    "request-property-became-required",
    "ERR",
    (d) => things(d).NewThing.required.push("note"),
    `${postBody}/properties/note`,
  ],
  [
    "request-property-added-required",
    "ERR",
    (d) => {
      things(d).NewThing.properties.z = { type: "string" };
      things(d).NewThing.required.push("z");
    },
    `${postBody}/properties/z`,
  ],
  [
    "request-property-added-optional",
    "INFO",
    (d) => (things(d).NewThing.properties.z = { type: "string" }),
    `${postBody}/properties/z`,
  ],
  [
    "request-property-became-nullable",
    "INFO",
    (d) => (things(d).NewThing.properties.note.nullable = true),
    `${postBody}/properties/note`,
  ],
  [
    "request-parameter-became-required",
    "ERR",
    (d) => (get(d).parameters[0].required = true),
    "/paths/~1v1~1things/get/parameters/0",
  ],
  [
    "new-required-request-parameter",
    "ERR",
    (d) =>
      get(d).parameters.push({
        name: "q",
        in: "query",
        required: true,
        schema: { type: "string" },
      }),
    "/paths/~1v1~1things/get/parameters/1",
  ],
  [
    "new-optional-request-parameter",
    "INFO",
    (d) =>
      get(d).parameters.push({
        name: "q",
        in: "query",
        required: false,
        schema: { type: "string" },
      }),
    "/paths/~1v1~1things/get/parameters/1",
  ],
  [
    "request-property-type-changed",
    "ERR",
    (d) => (things(d).NewThing.properties.note.type = "integer"),
    `${postBody}/properties/note`,
  ],
  [
    "request-property-pattern-changed",
    "WARN",
    (d) => (things(d).NewThing.properties.name.pattern = "^[a-z]{2,}$"),
    `${postBody}/properties/name`,
  ],
  [
    "request-property-pattern-removed",
    "INFO",
    (d) => delete things(d).NewThing.properties.name.pattern,
    `${postBody}/properties/name`,
  ],
  [
    "request-property-max-length-decreased",
    "ERR",
    (d) => (things(d).NewThing.properties.name.maxLength = 20),
    `${postBody}/properties/name`,
  ],
  [
    "request-property-max-length-increased",
    "INFO",
    (d) => (things(d).NewThing.properties.name.maxLength = 60),
    `${postBody}/properties/name`,
  ],
  [
    "request-parameter-max-decreased",
    "ERR",
    (d) => (get(d).parameters[0].schema.maximum = 50),
    "/paths/~1v1~1things/get/parameters/0/schema",
  ],
  [
    "request-parameter-max-increased",
    "INFO",
    (d) => (get(d).parameters[0].schema.maximum = 500),
    "/paths/~1v1~1things/get/parameters/0/schema",
  ],
  [
    "request-parameter-type-generalized",
    "INFO",
    (d) => (get(d).parameters[0].schema.type = "number"),
    "/paths/~1v1~1things/get/parameters/0/schema",
  ],
  [
    "endpoint-deprecated",
    "INFO",
    (d) => (get(d).deprecated = true),
    "/paths/~1v1~1things/get/deprecated",
  ],
  // Webhook payloads are sent by the platform: judged as responses.
  [
    "response-property-removed-optional",
    "WARN",
    (d) => delete hook(d).properties.at,
    `${hookBody}/properties/at`,
  ],
  [
    "response-property-removed-required",
    "ERR",
    (d) => {
      delete hook(d).properties.id;
      hook(d).required = [];
    },
    `${hookBody}/properties/id`,
  ],
  [
    "response-property-added-optional",
    "INFO",
    (d) => (hook(d).properties.more = { type: "string" }),
    `${hookBody}/properties/more`,
  ],
  ["response-body-became-nullable", "ERR", (d) => (hook(d).nullable = true), hookBody],
  [
    "webhook-removed",
    "ERR",
    (d) => delete d["x-webhooks"]["thing.done"],
    "/x-webhooks/thing.done/post",
  ],
];

describe("compatibility rules (decision V1)", () => {
  it.each(cases)("%s is %s", (id, level, change, pointer) => {
    const after = base();
    change(after);
    const findings = compareDocuments(base(), after);
    expect(
      findings.find((f) => f.id === id && f.pointer === pointer),
      JSON.stringify(findings, null, 1),
    ).toMatchObject({ id, level, pointer });
    // A compatible change brings no breaking finding along with it.
    if (level !== "ERR") expect(findings.filter((f) => f.level === "ERR")).toEqual([]);
  });

  it("an unchanged contract has no findings, descriptions are not changes", () => {
    const after = base();
    get(after).description = "now documented";
    expect(compareDocuments(base(), base())).toEqual([]);
    expect(compareDocuments(base(), after)).toEqual([]);
  });

  it("parameters declared on the path and on the operation read as one list: identical documents and moved parameters compare equal", () => {
    const withPathLevel = (): Doc => {
      const d = base();
      d.paths["/v1/things/{id}"] = {
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "trace", in: "header", schema: { type: "string" } },
        ],
        get: {
          operationId: "getThing",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok" } },
        },
      };
      return d;
    };
    expect(compareDocuments(withPathLevel(), withPathLevel())).toEqual([]);
    const moved = withPathLevel();
    moved.paths["/v1/things/{id}"].get.parameters.push(
      moved.paths["/v1/things/{id}"].parameters.pop(),
    );
    expect(compareDocuments(withPathLevel(), moved)).toEqual([]);
    // Renaming a path parameter does not make another path.
    const renamed = withPathLevel();
    renamed.paths["/v1/things/{thingId}"] = renamed.paths["/v1/things/{id}"];
    delete renamed.paths["/v1/things/{id}"];
    for (const p of [
      renamed.paths["/v1/things/{thingId}"].parameters[0],
      renamed.paths["/v1/things/{thingId}"].get.parameters[0],
    ])
      p.name = "thingId";
    expect(compareDocuments(withPathLevel(), renamed).filter((f) => f.level !== "INFO")).toEqual(
      [],
    );
  });

  it("a change no rule knows is unclassified, not breaking", () => {
    const after = base();
    things(after).NewThing.properties.note.someFutureKeyword = 3;
    const findings = compareDocuments(base(), after);
    expect(findings).toMatchObject([
      {
        id: "unclassified",
        level: "UNCLASSIFIED",
        pointer: `${postBody}/properties/note/someFutureKeyword`,
      },
    ]);
    const callbacks = base();
    post(callbacks).callbacks = {
      done: { "{$request.body#/url}": { post: { responses: { "200": { description: "ok" } } } } },
    };
    // A misspelt key of a parameter (allowEmptyValue, once the example here, has its rules now).
    get(callbacks).parameters[0].requird = true;
    expect(
      compareDocuments(base(), callbacks).map((f) => `${f.id} ${f.level} ${f.pointer}`),
    ).toEqual([
      "unclassified UNCLASSIFIED /paths/~1v1~1things/get/parameters/0/requird",
      "callback-added INFO /paths/~1v1~1things/post/callbacks/done/{$request.body#~1url}/post",
    ]);
  });

  it("a callback is judged as a webhook: the server sends its body", () => {
    const withCallback = (): Doc => {
      const d = base();
      post(d).callbacks = {
        done: {
          "{$request.body#/url}": {
            post: {
              requestBody: {
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      required: ["id"],
                      properties: { id: { type: "string" } },
                    },
                  },
                },
              },
              responses: { "200": { description: "ok" } },
            },
          },
        },
      };
      return d;
    };
    expect(compareDocuments(withCallback(), withCallback())).toEqual([]);
    const changed = withCallback();
    const payload =
      post(changed).callbacks.done["{$request.body#/url}"].post.requestBody.content[
        "application/json"
      ].schema;
    payload.properties.id.nullable = true;
    payload.properties.extra = { type: "string" };
    expect(compareDocuments(withCallback(), changed).map((f) => `${f.id} ${f.level}`)).toEqual([
      "response-property-became-nullable ERR",
      "response-property-added-optional INFO",
    ]);
    const gone = withCallback();
    delete post(gone).callbacks;
    expect(compareDocuments(withCallback(), gone).map((f) => `${f.id} ${f.level}`)).toEqual([
      "callback-removed ERR",
    ]);
  });

  // Parameters of a webhook or a callback travel from the platform to the receiver, as response
  // headers do: adding one is information, taking away or no longer promising one breaks readers.
  const sentHeader = (required?: boolean) => ({
    name: "webhook-id",
    in: "header",
    ...(required === undefined ? {} : { required }),
    schema: { type: "string" },
  });
  const webhookWith = (parameters: Doc[]): Doc => {
    const d = base();
    d.webhooks = {
      done: { post: { parameters, responses: { "200": { description: "ok" } } } },
    };
    return d;
  };
  const callbackWith = (parameters: Doc[]): Doc => {
    const d = base();
    post(d).callbacks = {
      done: {
        "{$request.body#/url}": {
          post: { parameters, responses: { "200": { description: "ok" } } },
        },
      },
    };
    return d;
  };
  it.each([
    ["added required", [], [sentHeader(true)], "response-header-added INFO"],
    ["added optional", [], [sentHeader()], "response-header-added INFO"],
    ["required removed", [sentHeader(true)], [], "required-response-header-removed ERR"],
    ["optional removed", [sentHeader()], [], "optional-response-header-removed WARN"],
    ["became required", [sentHeader()], [sentHeader(true)], "response-header-became-required INFO"],
    [
      "became optional",
      [sentHeader(true)],
      [sentHeader(false)],
      "response-header-became-optional ERR",
    ],
  ])(
    "a webhook's and a callback's header parameter %s is judged as a response header",
    (_, before, after, verdict) => {
      for (const make of [webhookWith, callbackWith])
        expect(
          compareDocuments(make(before), make(after)).map((f) => `${f.id} ${f.level}`),
        ).toEqual([verdict]);
    },
  );

  it("a schema that reaches itself through allOf or properties is compared without end", () => {
    const recursive = (): Doc => {
      const d = base();
      things(d).Node = {
        allOf: [
          { $ref: "#/components/schemas/Node" },
          { type: "object", properties: { child: { $ref: "#/components/schemas/Node" } } },
        ],
      };
      get(d).responses["200"].content["application/json"].schema = {
        $ref: "#/components/schemas/Node",
      };
      return d;
    };
    expect(compareDocuments(recursive(), recursive())).toEqual([]);
    const changed = recursive();
    things(changed).Node.allOf[1].properties.child.nullable = true;
    expect(compareDocuments(recursive(), changed).map((f) => f.id)).toContain(
      "response-property-became-nullable",
    );
  });

  it("the changelog of a release lists each change under its operation, with its rule and level", () => {
    const after = base();
    things(after).Thing.properties.extra = { type: "string" };
    things(after).NewThing.properties.z = { type: "string" };
    after.paths["/v1/other"] = {
      get: { operationId: "o", responses: { "200": { description: "ok" } } },
    };
    const section = changelogSection("1.1.0", compareDocuments(base(), after), "2026-01-01");
    expect(section).toMatch(/^## 1\.1\.0 \(2026-01-01\)/);
    expect(section).toMatch(
      /### `GET \/v1\/other`\n\n- INFO `endpoint-added`: new \(`\/paths\/~1v1~1other\/get`\)/,
    );
    expect(section).toMatch(
      /### `POST \/v1\/things`\n\n- INFO `request-property-added-optional`: property z added \(`[^`]+\/properties\/z`\)/,
    );
    expect(section).toMatch(
      /### `GET \/v1\/things`\n\n- INFO `response-property-added-optional`: property extra added \(`[^`]+\/properties\/extra`\)/,
    );
  });
});
