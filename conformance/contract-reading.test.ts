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
import { loadContract } from "./engine/load-contract.ts";
import { validate } from "./engine/validator.ts";

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

// Contracts outside the corpus: parameters serialized by where they go and their style (decision CL10). A server that
// reads OpenAPI's serializations (and nothing else) answers 400 to anything else, so each misread
// parameter is a positive_data_acceptance failure. Before: matrix and label path parameters went
// out bare (`/points/1,2`), path and header objects as JSON text, a `content` query parameter as
// `filter[a]=1`, and cookie parameters were never sent (a required one made every case a 400).
describe("unseen contracts: parameter styles, cookie and content parameters", () => {
  const ok = { "200": { description: "ok" }, "400": { description: "bad" } };
  const rgb = {
    type: "object",
    required: ["R", "G"],
    additionalProperties: false,
    properties: { R: { type: "integer", minimum: 0, maximum: 255 }, G: { type: "integer", minimum: 0, maximum: 255 } },
  };
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/points/{pt}": {
        get: {
          operationId: "matrixPoint",
          parameters: [{ name: "pt", in: "path", required: true, style: "matrix", schema: { type: "array", minItems: 2, maxItems: 2, items: { type: "integer", minimum: 0, maximum: 9 } } }],
          responses: ok,
        },
      },
      "/colors/{c}": {
        get: {
          operationId: "labelColors",
          parameters: [{ name: "c", in: "path", required: true, style: "label", explode: true, schema: { type: "array", minItems: 1, maxItems: 3, items: { type: "string", enum: ["red", "green"] } } }],
          responses: ok,
        },
      },
      "/rgb/{rgb}": {
        get: {
          operationId: "simpleObject",
          parameters: [
            { name: "rgb", in: "path", required: true, explode: true, schema: rgb },
            { name: "X-Rgb", in: "header", required: true, schema: rgb },
          ],
          responses: ok,
        },
      },
      "/session": {
        get: {
          operationId: "cookieAndContent",
          parameters: [
            { name: "session", in: "cookie", required: true, schema: { type: "string", enum: ["s1"] } },
            { name: "filter", in: "query", required: true, content: { "application/json": { schema: rgb } } },
          ],
          responses: ok,
        },
      },
    },
  };
  const byte = (s: string | undefined) => s !== undefined && /^\d+$/.test(s) && Number(s) <= 255;
  const isRgb = (o: Record<string, string>) => Object.keys(o).sort().join() === "G,R" && byte(o.R) && byte(o.G);
  const pairs = (items: string[]) => Object.fromEntries(items.map((x, i, a) => (i % 2 ? [] : [x, a[i + 1]])).filter((e) => e.length));
  const answer: Answer = (r) => {
    const url = new URL(r.url, "http://x");
    if (r.method !== "GET" && r.method !== "HEAD") return { status: 405, headers: { allow: "GET, HEAD" } };
    let good = false;
    const seg = decodeURIComponent(url.pathname.split("/")[2] ?? "");
    if (url.pathname.startsWith("/points/")) good = /^;pt=\d,\d$/.test(seg);
    else if (url.pathname.startsWith("/colors/")) good = /^(\.(red|green)){1,3}$/.test(seg);
    else if (url.pathname.startsWith("/rgb/")) {
      const path = Object.fromEntries(seg.split(",").map((kv) => kv.split("=")));
      const header = pairs(String(r.headers["x-rgb"] ?? "").split(","));
      good = isRgb(path) && isRgb(header);
    } else if (url.pathname === "/session") {
      let filter: unknown;
      try {
        filter = JSON.parse(url.searchParams.get("filter") ?? "");
      } catch {
        /* not JSON: refused below */
      }
      const f = filter as Record<string, unknown> | undefined;
      good = /(^|; )session=s1(;|$)/.test(String(r.headers.cookie ?? "")) && f !== null && typeof f === "object" && isRgb(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, Number.isInteger(v) ? String(v) : "x"])));
    }
    return { status: good ? 200 : 400 };
  };

  it("sends matrix, label, simple-object, header-object, cookie and content parameters as OpenAPI spells them", async () => {
    const { requests, failures } = await runOn(doc, answer, {
      phases: ["examples", "coverage", "fuzzing"],
      mode: "positive",
      checks: ["not_a_server_error", "status_code_conformance", "positive_data_acceptance"],
    });
    expect(failures).toEqual([]);
    for (const op of ["/points/;pt=", "/colors/.", "/rgb/", "/session?filter="]) expect(requests.some((r) => r.url.startsWith(op) || decodeURIComponent(r.url).startsWith(op))).toBe(true);
    expect(requests.filter((r) => r.url.startsWith("/session")).every((r) => /session=s1/.test(String(r.headers.cookie)))).toBe(true);
  });

  it("a server that ignores a missing required cookie is caught by negative_data_rejection", async () => {
    // Answers 200 whatever the Cookie header says: a required cookie it never reads.
    const ignoresCookie: Answer = (r) => answer({ ...r, headers: { ...r.headers, cookie: "session=s1" } });
    const { failures } = await runOn(doc, ignoresCookie, {
      phases: ["coverage"],
      mode: "negative",
      checks: ["negative_data_rejection"],
      includeOperationId: ["cookieAndContent"],
    });
    expect(failures).toContainEqual(expect.stringMatching(/^negative_data_rejection cookieAndContent: .*required cookie parameter session missing/));
  });
});

// Contracts outside the corpus: a discriminator names the branch (decision CL11). Each branch says only
// `petType: {type: string}`, so JSON Schema alone allows any text there; a server that dispatches
// on petType (openapi-generator's servers, Jackson, pydantic) refuses anything but the mapping's
// keys, or the schema's name where the mapping has none.
describe("unseen contracts: discriminator values in requests", () => {
  const pet = (extra: string) => ({
    type: "object",
    required: ["petType", extra],
    properties: { petType: { type: "string" }, [extra]: { type: "boolean" } },
  });
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/pets": {
        post: {
          operationId: "createPet",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }, { $ref: "#/components/schemas/Lizard" }],
                  discriminator: { propertyName: "petType", mapping: { cat: "#/components/schemas/Cat", dog: "Dog" } },
                },
              },
            },
          },
          responses: { "200": { description: "ok" }, "400": { description: "bad" } },
        },
      },
    },
    components: { schemas: { Cat: pet("meows"), Dog: pet("barks"), Lizard: pet("basks") } },
  };
  const branchOf: Record<string, string> = { cat: "meows", dog: "barks", Lizard: "basks" };
  const answer: Answer = (r) => {
    if (r.method !== "POST") return { status: 405, headers: { allow: "POST" } };
    let body: any;
    try {
      body = JSON.parse(r.body.toString());
    } catch {
      return { status: 400 };
    }
    const extra = branchOf[body?.petType];
    return { status: extra && typeof body[extra] === "boolean" ? 200 : 400 };
  };

  it("sends the mapping's keys (and an unmapped branch's schema name), never another petType", async () => {
    const { requests, failures } = await runOn(doc, answer, {
      phases: ["examples", "coverage", "fuzzing"],
      mode: "positive",
      checks: ["not_a_server_error", "positive_data_acceptance"],
    });
    expect(failures).toEqual([]);
    const sent = new Set(requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body.toString()).petType));
    expect([...sent].sort()).toEqual(["Lizard", "cat", "dog"]);
  });

  it("judges bodies by the schemas alone: one matching two branches is no valid oneOf value", async () => {
    // Cat and Dog both allow undeclared properties: {petType: "cat", meows, barks} matches both.
    // Drawn with the discriminator, judged without it (OpenAPI 3.1.1: it does not change validation).
    const spec = path.join(await mkdtemp(path.join(tmpdir(), "reading-")), "openapi.json");
    await writeFile(spec, JSON.stringify(doc));
    const contract = await loadContract(spec);
    const op = contract.operations.find((o) => o.id === "createPet")!;
    expect(validate(op.body!.schema, { petType: "cat", meows: true, barks: false }).valid).toBe(false);
    expect(validate(op.body!.schema, { petType: "cat", meows: true }).valid).toBe(true);
  });

  it("leaves a branch that fixes the property itself alone (OpenAI's messages: role enum, no mapping)", async () => {
    const message = (role: string) => ({ type: "object", required: ["role"], properties: { role: { type: "string", enum: [role] } } });
    const messages = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: {
        "/messages": {
          post: {
            operationId: "postMessage",
            requestBody: {
              required: true,
              content: { "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/DeveloperMessage" }, { $ref: "#/components/schemas/UserMessage" }], discriminator: { propertyName: "role" } } } },
            },
            responses: { "200": { description: "ok" }, "400": { description: "bad" } },
          },
        },
      },
      components: { schemas: { DeveloperMessage: message("developer"), UserMessage: message("user") } },
    };
    const roles: Answer = (r) => (r.method !== "POST" ? { status: 405, headers: { allow: "POST" } } : { status: ["developer", "user"].includes(JSON.parse(r.body.toString()).role) ? 200 : 400 });
    const { result, requests, failures } = await runOn(messages, roles, { phases: ["coverage", "fuzzing"], mode: "positive", checks: ["positive_data_acceptance"] });
    expect(failures).toEqual([]);
    expect(result.ledger.notices).toEqual([]);
    expect(new Set(requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body.toString()).role))).toEqual(new Set(["developer", "user"]));
  });
});

// Contracts outside the corpus: parameter values longer than an HTTP line holds (decision CL12). Discord allows
// 152,133 characters in a path segment, Adyen 20,000 in a header; the coverage phase sent exactly
// that, and Node's HTTP parser (this recording server's, Prism's) answered 431 or reset: a
// critical "no response" or an undocumented status that says nothing about the implementation.
describe("unseen contracts: parameters longer than a request line", () => {
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/tokens/{token}": {
        get: {
          operationId: "getToken",
          parameters: [
            { name: "token", in: "path", required: true, schema: { type: "string", minLength: 1, maxLength: 152133 } },
            { name: "X-Auth-Proof", in: "header", required: true, schema: { type: "string", minLength: 1, maxLength: 20000 } },
          ],
          responses: { "200": { description: "ok" }, "400": { description: "bad" } },
        },
      },
    },
  };
  const answer: Answer = (r) => {
    if (r.method !== "GET" && r.method !== "HEAD") return { status: 405, headers: { allow: "GET, HEAD" } };
    const token = decodeURIComponent(new URL(r.url, "http://x").pathname.slice("/tokens/".length));
    const proof = String(r.headers["x-auth-proof"] ?? "");
    return { status: token.length <= 152133 && proof.length >= 1 && proof.length <= 20000 ? 200 : 400 };
  };

  it("does not send the maxLength boundary of such parameters, and says so once", async () => {
    const { result, requests, failures } = await runOn(doc, answer, {
      phases: ["examples", "coverage", "fuzzing"],
      mode: "all",
      checks: ["not_a_server_error", "status_code_conformance", "negative_data_rejection", "positive_data_acceptance"],
    });
    expect(failures).toEqual([]);
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((r) => r.url.length > 8000 || String(r.headers["x-auth-proof"] ?? "").length > 8000)).toEqual([]);
    expect(result.ledger.notices).toContainEqual(expect.stringMatching(/^2 parameters allow more than 4096 characters.*getToken path:token \(maxLength 152133\), getToken header:X-Auth-Proof \(maxLength 20000\)$/));
  });
});

// Box: `digest` and `boxapi` are required headers of `type: string`; the suite sent them empty,
// which Prism (like many stacks) reads as a missing header and refuses. A required header or
// cookie is never sent empty in a valid case (decision CL10), as a path segment never is.
describe("unseen contracts: a required header is never empty in a valid case", () => {
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/commit": {
        post: {
          operationId: "commit",
          parameters: [
            { name: "digest", in: "header", required: true, schema: { type: "string" } },
            { name: "session", in: "cookie", required: true, schema: { type: "string" } },
          ],
          responses: { "200": { description: "ok" }, "400": { description: "bad" } },
        },
      },
    },
  };
  // Reads an empty header or cookie as absent, as Prism does.
  const answer: Answer = (r) => {
    if (r.method !== "POST") return { status: 405, headers: { allow: "POST" } };
    const cookie = /(?:^|; )session=([^;]*)/.exec(String(r.headers.cookie ?? ""))?.[1] ?? "";
    return { status: String(r.headers.digest ?? "") !== "" && cookie !== "" ? 200 : 400 };
  };

  it("sends no valid case with an empty required header or cookie", async () => {
    const { requests, failures } = await runOn(doc, answer, { phases: ["examples", "coverage", "fuzzing"], mode: "positive", maxExamples: 30, checks: ["positive_data_acceptance"] });
    expect(failures).toEqual([]);
    expect(requests.filter((r) => r.method === "POST").length).toBeGreaterThan(5);
  });
});
