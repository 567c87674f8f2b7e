// The classes of issue 38, each judged in every place a value travels: request body, query,
// path-level and cookie parameters and a webhook's answer (sent by the client: narrowing
// breaks), response body, response header, webhook and callback payloads (sent by the platform:
// widening breaks). Limits newly set, discriminators, readOnly/writeOnly crossings and
// alternatives compared by what they accept; then allowEmptyValue and header serialisation.
import { describe, expect, it } from "vitest";
import { compareDocuments, type Finding } from "./compare.ts";

type Doc = Record<string, any>;
type Verdict = "ERR" | "WARN" | "ok";

const json = (schema: Doc) => ({ content: { "application/json": { schema } } });
/** A document carrying `schema` in one place; `components` are its component schemas. */
function place(where: string, schema: Doc, components: Doc = {}): Doc {
  const ok = { "200": { description: "ok" } };
  const d: Doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: { "/things": { get: { responses: ok } } },
    components: { schemas: components },
  };
  const get = d.paths["/things"].get;
  if (where === "request body")
    d.paths["/things"].post = { requestBody: { required: true, ...json(schema) }, responses: ok };
  else if (where === "query parameter") get.parameters = [{ name: "q", in: "query", schema }];
  else if (where === "path-level parameter")
    d.paths["/things"].parameters = [{ name: "X-Q", in: "header", schema }];
  else if (where === "cookie parameter") get.parameters = [{ name: "c", in: "cookie", schema }];
  else if (where === "response body")
    get.responses = { "200": { description: "ok", ...json(schema) } };
  else if (where === "response header")
    get.responses = { "200": { description: "ok", headers: { "X-H": { schema } } } };
  else if (where === "webhook payload")
    d.webhooks = { done: { post: { requestBody: json(schema), responses: ok } } };
  else if (where === "webhook answer")
    d.webhooks = {
      done: { post: { responses: { "200": { description: "ok", ...json(schema) } } } },
    };
  else if (where === "callback payload")
    d.paths["/things"].post = {
      callbacks: {
        cb: { "{$request.body#/url}": { post: { requestBody: json(schema), responses: ok } } },
      },
      responses: ok,
    };
  else throw new Error(where);
  return d;
}

const sent = [
  "request body",
  "query parameter",
  "path-level parameter",
  "cookie parameter",
  "webhook answer",
];
const received = ["response body", "response header", "webhook payload", "callback payload"];
const bodies = {
  sent: ["request body", "webhook answer"],
  received: ["response body", "webhook payload", "callback payload"],
};

const verdict = (fs: Finding[]): Verdict =>
  fs.some((f) => f.level === "ERR") ? "ERR" : fs.some((f) => f.level === "WARN") ? "WARN" : "ok";

interface Case {
  what: string;
  before: Doc;
  after: Doc;
  /** Verdict where the client sends the value, and where the platform sends it. */
  sent: Verdict;
  received: Verdict;
  /** Only in bodies (objects, alternatives); else in every place. */
  bodyOnly?: boolean;
  componentsBefore?: Doc;
  componentsAfter?: Doc;
  /** A rule id the sending (request) side must name, with its direction prefix left out. */
  rule?: string;
}

const str = { type: "string" };
const int = { type: "integer" };
const arr = { type: "array", items: str };
const obj = { type: "object", properties: { a: str } };
const limits: Case[] = [
  ["maxLength", str, 10, "max-length"],
  ["minLength", str, 2, "min-length"],
  ["maximum", int, 10, "max"],
  ["minimum", int, 1, "min"],
  ["exclusiveMaximum", int, 10, "exclusive-max"],
  ["exclusiveMinimum", int, 1, "exclusive-min"],
  ["maxItems", arr, 3, "max-items"],
  ["minItems", arr, 1, "min-items"],
  ["uniqueItems", arr, true, "unique-items"],
  ["maxProperties", obj, 3, "max-properties"],
  ["minProperties", obj, 1, "min-properties"],
].flatMap(([key, s, v, name]) => {
  const set = { ...(s as Doc), [key as string]: v };
  const bodyOnly = key === "maxProperties" || key === "minProperties";
  return [
    {
      what: `${key} newly set`,
      before: s as Doc,
      after: set,
      sent: "ERR",
      received: "ok",
      bodyOnly,
      rule: `${name}-set`,
    },
    {
      what: `${key} no longer set`,
      before: set,
      after: s as Doc,
      sent: "ok",
      received: "ERR",
      bodyOnly,
    },
  ] as Case[];
});

const animals = (extra: Doc = {}): Doc => ({
  Cat: {
    type: "object",
    required: ["kind"],
    properties: { kind: str, meows: { type: "boolean" } },
  },
  Dog: {
    type: "object",
    required: ["kind"],
    properties: { kind: str, barks: { type: "boolean" } },
  },
  ...extra,
});
const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
const pet = (mapping: Doc, alternatives = ["Cat", "Dog"], propertyName = "kind") => ({
  oneOf: alternatives.map(ref),
  discriminator: { propertyName, mapping },
});
const catDog = { cat: "#/components/schemas/Cat", dog: "#/components/schemas/Dog" };
const Bird = { type: "object", required: ["kind"], properties: { kind: str, wings: int } };
const discriminators: Case[] = [
  {
    what: "discriminator propertyName changed",
    before: pet(catDog),
    after: pet(catDog, ["Cat", "Dog"], "type"),
    sent: "ERR",
    received: "ERR",
    rule: "discriminator-property-name-changed",
  },
  {
    what: "discriminator mapping entry removed, its schema still an alternative",
    before: pet(catDog),
    after: pet({ cat: catDog.cat }),
    sent: "ERR",
    received: "ERR",
    rule: "discriminator-mapping-deleted",
  },
  {
    what: "discriminator mapping entry repointed to another schema",
    before: pet(catDog),
    after: pet({ ...catDog, dog: "#/components/schemas/Bird" }, ["Cat", "Dog", "Bird"]),
    componentsAfter: animals({ Bird }),
    sent: "ERR",
    received: "ERR",
    rule: "discriminator-mapping-changed",
  },
  {
    what: "discriminator mapping entry repointed to the same schema renamed",
    before: pet(catDog),
    after: pet({ ...catDog, dog: "#/components/schemas/Hound" }, ["Cat", "Hound"]),
    componentsAfter: { Cat: animals().Cat, Hound: animals().Dog },
    sent: "ok",
    received: "ok",
  },
  {
    what: "discriminator mapping entry removed with its alternative",
    before: pet(catDog),
    after: pet({ cat: catDog.cat }, ["Cat"]),
    sent: "ERR",
    received: "ok",
  },
  {
    what: "discriminator mapping entry naming its own component removed (implicit mapping stays)",
    before: pet({ Cat: "#/components/schemas/Cat", Dog: "#/components/schemas/Dog" }),
    after: pet({ Cat: "#/components/schemas/Cat" }),
    sent: "ok",
    received: "ok",
  },
].map(
  (c) =>
    ({
      ...c,
      bodyOnly: true,
      componentsBefore: animals(),
      componentsAfter: c.componentsAfter ?? animals(),
    }) as Case,
);

const withProp = (p: Doc, required = true) => ({
  type: "object",
  required: required ? ["id", "name"] : ["name"],
  properties: { id: p, name: str },
});
const visibility: Case[] = [
  {
    what: "a required readOnly property becomes writable",
    before: withProp({ type: "string", readOnly: true }),
    after: withProp(str),
    sent: "ERR",
    received: "ok",
    rule: "property-required-became-not-read-only",
  },
  {
    what: "an optional readOnly property becomes writable",
    before: withProp({ type: "string", readOnly: true }, false),
    after: withProp(str, false),
    sent: "ok",
    received: "ok",
  },
  {
    what: "a limit newly set on a readOnly property (never sent)",
    before: withProp({ type: "string", readOnly: true }),
    after: withProp({ type: "string", readOnly: true, maxLength: 5 }),
    sent: "ok",
    received: "ok",
  },
  {
    what: "a required property becomes writeOnly (no longer returned)",
    before: withProp(str),
    after: withProp({ type: "string", writeOnly: true }),
    sent: "ok",
    received: "WARN",
  },
  {
    what: "an optional property becomes writeOnly (no longer returned)",
    before: withProp(str, false),
    after: withProp({ type: "string", writeOnly: true }, false),
    sent: "ok",
    received: "WARN",
  },
].map((c) => ({ ...c, bodyOnly: true }) as Case);

const named = (n: string, s: Doc) => ({ [n]: s });
const small = {
  type: "object",
  required: ["n"],
  properties: { n: { type: "string", maxLength: 10 } },
};
const wide = { type: "object", required: ["n"], properties: { n: str } };
const needsMore = { type: "object", required: ["n", "m"], properties: { n: str, m: str } };
const needsLess = { type: "object", required: ["n"], properties: { n: str, m: str } };
const alternatives: Case[] = (["oneOf", "anyOf", "allOf"] as const).flatMap((k) => [
  {
    what: `${k}: a component renamed with the same structure`,
    before: { [k]: [ref("A"), ref("B")] },
    after: { [k]: [ref("Renamed"), ref("B")] },
    componentsBefore: { A: wide, B: { type: "object", properties: { b: int } } },
    componentsAfter: { Renamed: wide, B: { type: "object", properties: { b: int } } },
    sent: "ok",
    received: "ok",
  } as Case,
]);
alternatives.push(
  {
    what: "anyOf: an alternative replaced by a wider one",
    before: { anyOf: [ref("Small"), { type: "integer" }] },
    after: { anyOf: [ref("Wide"), { type: "integer" }] },
    componentsBefore: named("Small", small),
    componentsAfter: named("Wide", wide),
    sent: "ok",
    received: "ERR",
  },
  {
    what: "anyOf: an alternative replaced by a narrower one",
    before: { anyOf: [ref("Wide"), { type: "integer" }] },
    after: { anyOf: [ref("Small"), { type: "integer" }] },
    componentsBefore: named("Wide", wide),
    componentsAfter: named("Small", small),
    sent: "ERR",
    received: "ok",
  },
  {
    what: "allOf: a member replaced by one requiring less",
    before: { allOf: [ref("More"), { type: "object", properties: { z: int } }] },
    after: { allOf: [ref("Less"), { type: "object", properties: { z: int } }] },
    componentsBefore: named("More", needsMore),
    componentsAfter: named("Less", needsLess),
    sent: "ok",
    received: "ERR",
  },
  {
    what: "allOf: a member replaced by one requiring more",
    before: { allOf: [ref("Less"), { type: "object", properties: { z: int } }] },
    after: { allOf: [ref("More"), { type: "object", properties: { z: int } }] },
    componentsBefore: named("Less", needsLess),
    componentsAfter: named("More", needsMore),
    sent: "ERR",
    received: "ok",
  },
  {
    what: "oneOf: one existing component swapped for another existing one (two types, as oasdiff)",
    before: { oneOf: [ref("Cat"), ref("Dog")] },
    after: { oneOf: [ref("Cat"), ref("Bird")] },
    componentsBefore: animals({ Bird }),
    componentsAfter: animals({ Bird }),
    sent: "ERR",
    received: "ERR",
  },
);
for (const c of alternatives) c.bodyOnly = true;

describe("issue 38 classes, in every place a value travels", () => {
  const all = [...limits, ...discriminators, ...visibility, ...alternatives];
  const rows = all.flatMap((c) => [
    ...(c.bodyOnly ? bodies.sent : sent).map((w) => [c.what, w, "sent", c] as const),
    ...(c.bodyOnly ? bodies.received : received).map((w) => [c.what, w, "received", c] as const),
  ]);
  it.each(rows)("%s, in a %s", (_what, where, side, c) => {
    const findings = compareDocuments(
      place(where, c.before, c.componentsBefore),
      place(where, c.after, c.componentsAfter ?? c.componentsBefore),
    );
    expect(verdict(findings), JSON.stringify(findings.map((f) => `${f.level} ${f.id}`))).toBe(
      side === "sent" ? c.sent : c.received,
    );
    if (c.rule && side === "sent") expect(findings.map((f) => f.id).join(" ")).toContain(c.rule);
  });

  it("every case's documents compare equal to themselves", () => {
    for (const c of all)
      for (const where of c.bodyOnly
        ? [...bodies.sent, ...bodies.received]
        : [...sent, ...received]) {
        expect(
          compareDocuments(
            place(where, c.before, c.componentsBefore),
            place(where, c.before, c.componentsBefore),
          ),
        ).toEqual([]);
        expect(
          compareDocuments(
            place(where, c.after, c.componentsAfter ?? c.componentsBefore),
            place(where, c.after, c.componentsAfter ?? c.componentsBefore),
          ),
        ).toEqual([]);
      }
  });
});

describe("parameter and header neighbours", () => {
  const param = (p: Doc, pathLevel = false): Doc => ({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/things": {
        ...(pathLevel ? { parameters: [p] } : {}),
        get: {
          ...(pathLevel ? {} : { parameters: [p] }),
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const header = (h: Doc): Doc => ({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/things": {
        get: {
          responses: {
            "200": {
              description: "ok",
              headers: { "X-List": { schema: { type: "array", items: int }, ...h } },
            },
          },
        },
      },
    },
  });
  const q = { name: "q", in: "query", schema: str };
  it.each([
    [
      "allowEmptyValue removed (operation)",
      param({ ...q, allowEmptyValue: true }),
      param(q),
      "request-parameter-allow-empty-value-removed",
      "ERR",
    ],
    [
      "allowEmptyValue removed (path level)",
      param({ ...q, allowEmptyValue: true }, true),
      param(q, true),
      "request-parameter-allow-empty-value-removed",
      "ERR",
    ],
    [
      "allowEmptyValue added",
      param(q),
      param({ ...q, allowEmptyValue: true }),
      "request-parameter-allow-empty-value-added",
      "INFO",
    ],
    [
      "a response header's explode changed",
      header({}),
      header({ explode: true }),
      "response-header-serialization-changed",
      "ERR",
    ],
    [
      "a response header's explode written out as its default",
      header({}),
      header({ explode: false, style: "simple" }),
      undefined,
      undefined,
    ],
  ] as const)("%s", (_what, a, b, id, level) => {
    const findings = compareDocuments(a, b);
    if (!id) expect(findings).toEqual([]);
    else expect(findings).toContainEqual(expect.objectContaining({ id, level }));
  });
});

describe("a request media type renamed (the neighbour of the response rules)", () => {
  const body = (mt: string): Doc => ({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/things": {
        patch: {
          requestBody: { content: { [mt]: { schema: { type: "object" } } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  it.each([
    [
      "application/merge-patch+json",
      "application/json",
      "request-body-media-type-name-generalized",
      "INFO",
    ],
    [
      "application/json",
      "application/merge-patch+json",
      "request-body-media-type-name-specialized",
      "ERR",
    ],
    [
      "application/json",
      "application/json; charset=utf-8",
      "request-body-media-type-name-changed",
      "INFO",
    ],
    ["application/json", "text/plain", "request-body-media-type-removed", "ERR"],
  ] as const)("%s -> %s: %s", (from, to, id, level) => {
    const findings = compareDocuments(body(from), body(to));
    expect(findings).toContainEqual(expect.objectContaining({ id, level }));
    if (level === "INFO") expect(findings.filter((f) => f.level === "ERR")).toEqual([]);
  });
});
