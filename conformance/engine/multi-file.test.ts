// Issue 29 item 1: a contract split over files and URLs is read whole. DigitalOcean's public
// contract writes operations as `$ref`s to files (`get: {$ref: resources/1-clicks/list.yml}`), and
// the suite read its 659 operations as having no parameters, body or responses. Here every place
// OpenAPI (or a tool) allows a `$ref` points into another file or a loopback URL, relative to the
// document it is written in, with a cycle across files; the suite must read exactly what
// `redocly bundle` of the same contract holds.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unpackFileSet } from "../fixtures/file-set.ts";
import { summarize } from "./contract-summary.ts";
import { buildContract, loadContract } from "./load-contract.ts";
import { validate } from "./validator.ts";

const REDOCLY = path.resolve(import.meta.dirname, "../../node_modules/.bin/redocly");

/** Files of the contract, relative to its folder; `{url}` is the loopback server's base URL. */
const files: Record<string, string> = {
  "openapi.yaml": `
openapi: 3.0.3
info: { title: multi, version: "1" }
paths:
  /things:
    $ref: paths/things.yaml
  /things/{id}:
    parameters:
      - $ref: parameters.yaml#/id
    get:
      $ref: operations/get-thing.yaml
    delete:
      operationId: deleteThing
      responses:
        "204": { description: gone }
        "404":
          $ref: "#/components/responses/NotFound"
  /remote:
    get:
      $ref: "{url}/ops/remote.json"
components:
  responses:
    NotFound:
      $ref: responses/not-found.yaml
  schemas:
    Thing:
      $ref: schemas/thing.yaml
`,
  "parameters.yaml": `
id: { name: id, in: path, required: true, schema: { type: string, pattern: "^t_[a-z0-9]+$" } }
limit: { name: limit, in: query, schema: { $ref: "./schemas/common.json#/definitions/Limit" } }
`,
  "paths/things.yaml": `
get:
  operationId: listThings
  parameters:
    - $ref: ../parameters.yaml#/limit
  responses:
    "200":
      $ref: ../responses/things.yaml
post:
  operationId: createThing
  requestBody:
    $ref: ../bodies/thing.json
  responses:
    "200":
      description: created
      content:
        application/json:
          schema: { $ref: ../schemas/thing.yaml }
`,
  "operations/get-thing.yaml": `
operationId: getThing
parameters:
  - name: fields
    in: query
    schema: { type: array, items: { type: string, enum: [name, owner] } }
responses:
  "200":
    description: one thing
    content:
      application/json:
        schema: { $ref: "../openapi.yaml#/components/schemas/Thing" }
        examples:
          one: { $ref: ../examples.yaml#/one }
    links:
      Delete: { $ref: ../links.yaml#/DeleteThing }
  "404": { $ref: ../responses/not-found.yaml }
`,
  "bodies/thing.json": JSON.stringify({
    required: true,
    content: { "application/json": { schema: { $ref: "../schemas/thing.yaml" } } },
  }),
  "responses/things.yaml": `
description: a page of things
headers:
  X-Total-Count: { $ref: ../headers.yaml#/total }
content:
  application/json:
    schema: { type: array, items: { $ref: ../schemas/thing.yaml } }
`,
  "responses/not-found.yaml": `
description: not found
content:
  application/json:
    schema: { $ref: ../schemas/common.json#/definitions/Error }
`,
  "headers.yaml": `
total: { required: true, schema: { type: integer, minimum: 0 } }
`,
  "examples.yaml": `
one: { value: { id: t_1, name: one, $ref: "kept as data" } }
`,
  "links.yaml": `
DeleteThing: { operationId: deleteThing, parameters: { id: "$response.body#/id" } }
`,
  "schemas/thing.yaml": `
type: object
required: [id, name]
properties:
  id: { type: string, pattern: "^t_[a-z0-9]+$" }
  name: { type: string, minLength: 1 }
  owner: { $ref: owner.yaml }
  parts: { type: array, items: { $ref: "#" } }
`,
  // owner -> thing -> owner: a cycle across files
  "schemas/owner.yaml": `
type: object
required: [login]
properties:
  login: { type: string }
  favourite: { $ref: thing.yaml }
`,
  "schemas/common.json": JSON.stringify({
    definitions: {
      Limit: { type: "integer", minimum: 1, maximum: 100 },
      Error: { type: "object", required: ["message"], properties: { message: { type: "string" } } },
    },
  }),
};

/** Served over loopback: an operation whose schema sits beside it at the same URL. */
const served: Record<string, string> = {
  "/ops/remote.json": JSON.stringify({
    operationId: "getRemote",
    responses: {
      "200": {
        description: "ok",
        content: { "application/json": { schema: { $ref: "schemas/remote.yaml" } } },
      },
    },
  }),
  "/ops/schemas/remote.yaml":
    "type: object\nrequired: [ok]\nproperties:\n  ok: { type: boolean }\n",
};

let server: http.Server;
let dir: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const body = served[req.url ?? ""];
    res.writeHead(body ? 200 : 404, { "content-type": "text/plain" }).end(body ?? "no such file");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(path.join(tmpdir(), "multi-file-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text.replaceAll("{url}", url));
  }
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** `redocly bundle` of the contract, read back as one document. */
async function bundled(root: string): Promise<any> {
  const out = path.join(path.dirname(root), "bundled.json");
  await promisify(execFile)(REDOCLY, ["bundle", root, "-o", out], { cwd: path.dirname(root) });
  return JSON.parse(await readFile(out, "utf8"));
}

describe("a contract over files and URLs", () => {
  it("reads every operation, parameter, body and response through references to files and URLs", async () => {
    const contract = await loadContract(path.join(dir, "openapi.yaml"));
    expect(contract.warnings).toEqual([]);
    const op = (id: string) => contract.operations.find((o) => o.id === id)!;
    expect(contract.operations.map((o) => o.id).sort()).toEqual([
      "createThing",
      "deleteThing",
      "getRemote",
      "getThing",
      "listThings",
    ]);
    expect(op("listThings").parameters.map((p) => [p.in, p.name, p.schema])).toEqual([
      ["query", "limit", { type: "integer", minimum: 1, maximum: 100 }],
    ]);
    expect(
      op("getThing")
        .parameters.map((p) => `${p.in}:${p.name}`)
        .sort(),
    ).toEqual(["path:id", "query:fields"]);
    expect(op("createThing").body).toMatchObject({ mediaType: "application/json", required: true });
    const list = op("listThings").responses[0];
    expect(list.headers["x-total-count"]).toMatchObject({
      required: true,
      schema: { type: "integer", minimum: 0 },
    });
    // the cycle thing -> owner -> thing is one cyclic graph, validated at depth
    const thing: any = op("getThing").responses.find((r) => r.status === "200")!.content[
      "application/json"
    ].schema;
    expect(thing.properties.owner.properties.favourite).toBe(thing);
    expect(thing.properties.parts.items).toBe(thing);
    expect(
      validate(thing, {
        id: "t_1",
        name: "a",
        owner: { login: "x", favourite: { id: "t_2", name: "b" } },
      }).valid,
    ).toBe(true);
    expect(
      validate(thing, {
        id: "t_1",
        name: "a",
        owner: { login: "x", favourite: { id: "bad", name: "b" } },
      }).valid,
    ).toBe(false);
    expect(
      op("getThing").responses.find((r) => r.status === "200")!.content["application/json"]
        .examples,
    ).toEqual([{ id: "t_1", name: "one", $ref: "kept as data" }]);
    expect(op("getThing").responses.find((r) => r.status === "200")!.links).toEqual([
      { name: "Delete", operationId: "deleteThing", parameters: { id: "$response.body#/id" } },
    ]);
    expect(
      op("deleteThing").responses.find((r) => r.status === "404")!.content["application/json"]
        .schema,
    ).toMatchObject({ required: ["message"] });
    // relative to the URL it was read from
    expect(
      validate(op("getRemote").responses[0].content["application/json"].schema, { ok: "yes" })
        .valid,
    ).toBe(false);
  });

  it("reads exactly the operations, parameters and responses of `redocly bundle` of it", async () => {
    const root = path.join(dir, "openapi.yaml");
    const [multi, bundle] = await Promise.all([loadContract(root), bundled(root)]);
    expect(summarize(multi)).toEqual(summarize(buildContract(bundle)));
  }, 60_000);

  it("a file that is missing or not JSON/YAML is a warning naming the reference, and the rest loads", async () => {
    await writeFile(path.join(dir, "not-yaml.txt"), "{ [ : this is neither");
    await writeFile(
      path.join(dir, "broken.yaml"),
      `
openapi: 3.0.3
info: { title: broken, version: "1" }
paths:
  /a:
    get:
      operationId: a
      parameters: [{ $ref: "parameters.yaml#/nope" }, { $ref: "parameters.yaml#/limit" }]
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: schemas/missing.yaml } } } }
        "404": { $ref: not-yaml.txt }
`,
    );
    const contract = await loadContract(path.join(dir, "broken.yaml"));
    expect(contract.operations[0].parameters.map((p) => p.name)).toEqual(["limit"]);
    expect(contract.warnings).toEqual([
      {
        pointer: "broken.yaml#/paths/~1a/get/parameters/0".replace("broken.yaml", ""),
        message:
          "reference parameters.yaml#/nope points at nothing: what it describes is not validated",
      },
      {
        pointer: "#/paths/~1a/get/responses/200/content/application~1json/schema",
        message: expect.stringMatching(
          /^reference schemas\/missing\.yaml cannot be followed: \/.*\/schemas\/missing\.yaml does not exist: what it describes is not validated$/,
        ),
      },
      {
        pointer: "#/paths/~1a/get/responses/404",
        message: expect.stringMatching(
          /^reference not-yaml\.txt cannot be followed: not valid JSON\/YAML/,
        ),
      },
    ]);
  });
});

// The real thing: DigitalOcean's public contract as its 2,907 files (conformance/fixtures/contracts/).
describe("DigitalOcean's multi-file contract", () => {
  it("reads its 659 operations exactly as `redocly bundle` of it has them", async () => {
    const root = unpackFileSet(
      path.resolve(import.meta.dirname, "../fixtures/contracts/digitalocean-public.files.json.gz"),
      await mkdtemp(path.join(tmpdir(), "do-")),
    );
    const [multi, bundle] = await Promise.all([loadContract(root), bundled(root)]);
    expect(multi.warnings).toEqual([]);
    expect(multi.operations).toHaveLength(659);
    const summary = summarize(multi);
    // before: no operation had a parameter, a body or a response
    expect(summary.filter((o) => o.parameters.length).length).toBeGreaterThan(400);
    expect(summary.filter((o) => o.body).length).toBe(217);
    expect(summary.every((o) => o.responses.length > 0)).toBe(true);
    // the Accept and Content-Type header parameters of the apps operations are not parameters
    expect(
      summary
        .flatMap((o) => o.parameters)
        .filter((p) => /^header:(accept|content-type|authorization)\b/i.test(p)),
    ).toEqual([]);
    expect(summary).toEqual(summarize(buildContract(bundle)));
  }, 120_000);
});
