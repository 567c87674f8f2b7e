// Issue 29 items 3 to 5: the contract read as OpenAPI says, each on a minimal contract and a
// loopback server that answers it correctly, so any failure is the suite's own.
// 3. Header parameters named Accept, Content-Type, Authorization are ignored (PagerDuty declares
//    Accept as any string: the suite sent `Accept: YWp6JN` over the user's -H); Accept comes from
//    the responses' content map; a header the user sets is never generated over.
// 4. readOnly and writeOnly: a request never carries a readOnly property and does not need it; a
//    response need not carry a writeOnly one.
// 5. A path with a fragment (Box: `/files/{file_id}#get_shared_link`) sends its query before the
//    fragment, and its sibling's methods are not "unsupported".
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startRecordingServer,
  type Answer,
  type RecordingServer,
} from "./fixtures/recording-server.ts";
import { run, type RunOptions } from "./engine/runner.ts";

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runOn(doc: object, answer: Answer, opts: Partial<RunOptions>) {
  const spec = path.join(await mkdtemp(path.join(tmpdir(), "reading-")), "openapi.json");
  await writeFile(spec, JSON.stringify(doc));
  server = await startRecordingServer(answer);
  const result = await run({
    spec,
    baseUrl: server.url,
    seed: 1,
    maxExamples: 10,
    workers: 1,
    config: { keys: { all: "k" } },
    ...opts,
  });
  return {
    result,
    requests: server.requests,
    failures: result.ledger.failures.map((f) => `${f.check} ${f.operation}: ${f.message}`),
  };
}

const json = (schema: object) => ({ "application/json": { schema } });

describe("item 3: Accept, Content-Type and Authorization parameters, and the user's headers", () => {
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/things": {
        parameters: [
          {
            name: "X-Tenant",
            in: "header",
            required: true,
            schema: { type: "string", enum: ["t-1", "t-2"] },
          },
        ],
        get: {
          operationId: "listThings",
          parameters: [
            { name: "Accept", in: "header", schema: { type: "string" } },
            { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "ok",
              content: {
                ...json({ type: "array" }),
                "application/yaml": { schema: { type: "string" } },
              },
            },
            "400": { description: "bad" },
          },
        },
        post: {
          operationId: "createThing",
          parameters: [
            {
              name: "content-type",
              in: "header",
              schema: { type: "string", enum: ["application/yaml"] },
            },
          ],
          requestBody: {
            required: true,
            content: json({
              type: "object",
              required: ["name"],
              properties: { name: { type: "string", maxLength: 5 } },
            }),
          },
          responses: {
            "200": { description: "ok", content: json({ type: "object" }) },
            "400": { description: "bad" },
          },
        },
      },
    },
  };
  // Correct: only the user's tenant exists; JSON bodies with a name up to 5 characters.
  const answer: Answer = (r) => {
    if (r.headers["x-tenant"] !== "t-2") return { status: 400, body: { error: "tenant" } };
    if (r.method === "GET") return { status: 200, body: [] };
    let body: any;
    try {
      body = JSON.parse(r.body.toString());
    } catch {
      return { status: 400, body: { error: "not JSON" } };
    }
    return typeof body?.name === "string" &&
      body.name.length <= 5 &&
      r.headers["content-type"] === "application/json"
      ? { status: 200, body: {} }
      : { status: 400, body: { error: "bad" } };
  };

  it("sends Accept from the content map, Content-Type from the body, and the user's -H untouched", async () => {
    const { requests, failures } = await runOn(doc, answer, {
      headers: { "x-tenant": "t-2" },
      phases: ["examples", "coverage", "fuzzing"],
      mode: "all",
      checks: [
        "not_a_server_error",
        "positive_data_acceptance",
        "negative_data_rejection",
        "missing_required_header",
      ],
    });
    expect(requests.length).toBeGreaterThan(10);
    expect(new Set(requests.map((r) => r.headers["x-tenant"]))).toEqual(new Set(["t-2"]));
    expect(
      new Set(requests.filter((r) => r.method === "GET").map((r) => r.headers.accept)),
    ).toEqual(new Set(["application/json, application/yaml;q=0.5"]));
    expect(
      new Set(requests.filter((r) => r.method === "POST").map((r) => r.headers.accept)),
    ).toEqual(new Set(["application/json"]));
    expect(
      new Set(
        requests
          .filter((r) => r.method === "POST" && r.body.length)
          .map((r) => r.headers["content-type"]),
      ),
    ).toEqual(new Set(["application/json"]));
    expect(new Set(requests.map((r) => r.headers.authorization))).toEqual(new Set([undefined]));
    expect(failures).toEqual([]);
  });
});

describe("item 4: readOnly and writeOnly", () => {
  const user = {
    type: "object",
    required: ["id", "name", "password"],
    additionalProperties: false,
    properties: {
      id: { type: "string", readOnly: true },
      name: { type: "string", minLength: 1, maxLength: 8 },
      password: { type: "string", writeOnly: true, minLength: 8, maxLength: 12 },
    },
  };
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/users": {
        post: {
          operationId: "createUser",
          requestBody: { required: true, content: json({ $ref: "#/components/schemas/User" }) },
          responses: {
            "200": { description: "ok", content: json({ $ref: "#/components/schemas/User" }) },
            "400": { description: "bad" },
          },
        },
      },
    },
    components: { schemas: { User: user } },
  };
  // Correct: the client may not set the id; the password is required and never returned.
  const answer: Answer = (r) => {
    let b: any;
    try {
      b = JSON.parse(r.body.toString());
    } catch {
      return { status: 400, body: {} };
    }
    const ok =
      b &&
      typeof b === "object" &&
      !Array.isArray(b) &&
      !("id" in b) &&
      Object.keys(b).every((k) => k === "name" || k === "password") &&
      typeof b.name === "string" &&
      b.name.length >= 1 &&
      b.name.length <= 8 &&
      typeof b.password === "string" &&
      b.password.length >= 8 &&
      b.password.length <= 12;
    return ok ? { status: 200, body: { id: "u_1", name: b.name } } : { status: 400, body: {} };
  };

  it("requests never carry the readOnly id, and the response need not carry the writeOnly password", async () => {
    const { requests, failures } = await runOn(doc, answer, {
      phases: ["examples", "coverage", "fuzzing"],
      mode: "all",
      checks: [
        "positive_data_acceptance",
        "negative_data_rejection",
        "response_schema_conformance",
      ],
    });
    expect(requests.length).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });

  it("a response without the readOnly id still fails", async () => {
    const leaky: Answer = (r) =>
      answer(r).status === 200 ? { status: 200, body: { name: "x" } } : answer(r);
    const { failures } = await runOn(doc, leaky, {
      phases: ["coverage"],
      mode: "positive",
      checks: ["response_schema_conformance"],
    });
    expect(failures).toEqual([
      expect.stringMatching(
        /^response_schema_conformance createUser: \[200\] .*must have required property 'id'/,
      ),
    ]);
  });
});

describe("item 5: a path with a fragment", () => {
  const file = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
  const link = {
    type: "object",
    required: ["shared_link"],
    properties: { shared_link: { type: "string" } },
  };
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/files/{file_id}": {
        parameters: [
          { name: "file_id", in: "path", required: true, schema: { type: "string", enum: ["f1"] } },
        ],
        get: {
          operationId: "getFile",
          responses: { "200": { description: "ok", content: json(file) } },
        },
        delete: { operationId: "deleteFile", responses: { "204": { description: "gone" } } },
      },
      "/files/{file_id}#get_shared_link": {
        parameters: [
          { name: "file_id", in: "path", required: true, schema: { type: "string", enum: ["f1"] } },
        ],
        get: {
          operationId: "getSharedLink",
          parameters: [
            {
              name: "fields",
              in: "query",
              required: true,
              schema: { type: "string", enum: ["shared_link"] },
            },
          ],
          responses: { "200": { description: "ok", content: json(link) } },
        },
      },
    },
  };
  const answer: Answer = (r) => {
    const url = new URL(r.url, "http://x");
    if (url.pathname !== "/files/f1") return { status: 404, body: {} };
    if (r.method === "GET")
      return {
        status: 200,
        body:
          url.searchParams.get("fields") === "shared_link"
            ? { id: "f1", shared_link: "https://l" }
            : { id: "f1" },
      };
    if (r.method === "HEAD") return { status: 200 };
    if (r.method === "DELETE") return { status: 204 };
    return { status: 405, headers: { allow: "GET, HEAD, DELETE" } };
  };

  it("sends the query before the fragment and probes only methods neither sibling declares", async () => {
    const { requests, failures } = await runOn(doc, answer, {
      phases: ["examples", "coverage", "fuzzing"],
      mode: "positive",
      checks: [
        "not_a_server_error",
        "status_code_conformance",
        "response_schema_conformance",
        "unsupported_method",
      ],
    });
    expect(requests.some((r) => r.url === "/files/f1?fields=shared_link")).toBe(true);
    expect(requests.filter((r) => r.url.includes("#"))).toEqual([]);
    expect(failures).toEqual([]);
  });
});

describe("item 5: a path with a query (OpenAI: `/responses/{response_id}?beta=true`)", () => {
  const response = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
  const include = {
    name: "include",
    in: "query",
    required: true,
    schema: { type: "string", enum: ["usage"] },
  };
  const id = {
    name: "response_id",
    in: "path",
    required: true,
    schema: { type: "string", enum: ["r1"] },
  };
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/responses/{response_id}": {
        get: {
          operationId: "getResponse",
          parameters: [id, include],
          responses: { "200": { description: "ok", content: json(response) } },
        },
      },
      "/responses/{response_id}?beta=true": {
        get: {
          operationId: "betaGetResponse",
          parameters: [id, include],
          responses: { "200": { description: "ok", content: json(response) } },
        },
      },
    },
  };
  const answer: Answer = (r) => {
    const url = new URL(r.url, "http://x");
    if (url.pathname !== "/responses/r1") return { status: 404, body: {} };
    if (r.method === "GET" || r.method === "HEAD") return { status: 200, body: { id: "r1" } };
    return { status: 405, headers: { allow: "GET, HEAD" } };
  };

  it("sends the key's query first and the generated parameters after it with &, never a second ?", async () => {
    const { requests, failures } = await runOn(doc, answer, {
      phases: ["examples", "coverage", "fuzzing"],
      mode: "positive",
      checks: ["not_a_server_error", "status_code_conformance", "response_schema_conformance"],
    });
    expect(requests.some((r) => r.url === "/responses/r1?beta=true&include=usage")).toBe(true);
    expect(requests.some((r) => r.url === "/responses/r1?include=usage")).toBe(true);
    expect(requests.filter((r) => r.url.split("?").length > 2)).toEqual([]);
    expect(failures).toEqual([]);
  });
});
