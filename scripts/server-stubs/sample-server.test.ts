// The generated plugin for the sample contract, on a real fastify server on loopback: validation,
// error bodies, 404/405, 501 for missing handlers, scopes handed to authorize, serialization.
import fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, registerRoutes } from "./expected/server/index.ts";
import type { NotesHandlers } from "./expected/server/index.ts";

const scopesSeen: (string | null)[] = [];
const handlers: NotesHandlers<{ user: string }> = {
  async listNotes({ query }) {
    return { notes: [{ id: String(query.limit), title: "t", kind: "plain", secret: "dropped" } as never] };
  },
  async createNote({ body, auth }) {
    return { id: "n1", title: body.title, kind: body.kind ?? "plain", body: auth.user };
  },
  async getNote({ params }) {
    throw new ApiError(404, "not_found", `note ${params.id} not found`);
  },
  async deleteNote() {
    return { deleted: true };
  },
};

let base = "";
const app = fastify();
beforeAll(async () => {
  await registerRoutes(app, handlers, {
    authorize: ({ request, scope }) => {
      scopesSeen.push(scope);
      if (request.headers.authorization !== "Bearer ok") throw new ApiError(401, "unauthorized", "missing key");
      return { user: "u1" };
    },
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => app.close());

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    body,
    headers: { authorization: "Bearer ok", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe("generated registerRoutes", () => {
  it.each([
    ["a valid body reaches the handler", "POST", "/v1/notes", '{"title":"hello","kind":"todo"}', 200, undefined],
    ["a missing required field", "POST", "/v1/notes", "{}", 400, "body.title"],
    ["a pattern violation", "POST", "/v1/notes", '{"title":"HELLO"}', 400, "body.title"],
    ["an unknown field with additionalProperties false", "POST", "/v1/notes", '{"title":"ab","x":1}', 400, "body.x"],
    ["a bad format", "POST", "/v1/notes", '{"title":"ab","contact":"nope"}', 400, "body.contact"],
    ["a bad enum through a $ref", "POST", "/v1/notes", '{"title":"ab","kind":"x"}', 400, "body.kind"],
    ["a query integer out of range", "GET", "/v1/notes?limit=500", undefined, 400, "query.limit"],
    ["a query that is not an integer", "GET", "/v1/notes?limit=abc", undefined, 400, "query.limit"],
    ["a path parameter against its pattern", "GET", "/v1/tags/UPPER/notes", undefined, 400, "path.name"],
    ["a discriminated variant", "POST", "/v1/notes", '{"title":"ab","attachment":{"kind":"file","name":"a.txt"}}', 200, undefined],
    ["the variant chosen by its tag is the one checked", "POST", "/v1/notes", '{"title":"ab","attachment":{"kind":"file","url":"https://x.test"}}', 400, "body.attachment.name"],
    ["an unknown tag", "POST", "/v1/notes", '{"title":"ab","attachment":{"kind":"video"}}', 400, "body.attachment.kind"],
  ])("%s", async (_name, method, path, body, status, detailPath) => {
    const res = await call(method, path, body);
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.body.code).toBe("invalid_request");
      expect(typeof res.body.error).toBe("string");
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(detailPath);
    }
  });

  it("explains a pattern by the schema's description and a tag by its values", async () => {
    expect((await call("POST", "/v1/notes", '{"title":"HELLO"}')).body.details).toEqual([
      { path: "body.title", message: "is not valid: Lowercase letters, digits, dots, spaces and hyphens." },
    ]);
    expect((await call("POST", "/v1/notes", '{"title":"ab","attachment":{"kind":"video"}}')).body.details).toEqual([
      { path: "body.attachment.kind", message: "must be one of link, file" },
    ]);
  });

  it("malformed JSON is 400 with the error body, and the server keeps serving", async () => {
    for (const bad of ['{"title":', "nul", "[1,", '{"a":1}}']) {
      const res = await call("POST", "/v1/notes", bad);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("invalid_request");
    }
    expect((await call("DELETE", "/v1/notes/1")).status).toBe(200);
  });

  it("an empty body where one is required is 400", async () => {
    const res = await fetch(`${base}/v1/notes`, { method: "POST", headers: { authorization: "Bearer ok" } });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_request");
  });

  it("coerces query parameters and applies defaults", async () => {
    expect((await call("GET", "/v1/notes?limit=7")).body.notes[0].id).toBe("7");
    expect((await call("GET", "/v1/notes")).body.notes[0].id).toBe("50");
  });

  it("serializes with the response schema, dropping undeclared fields", async () => {
    const res = await call("GET", "/v1/notes");
    expect(res.body.notes[0]).toEqual({ id: "50", title: "t", kind: "plain" });
  });

  it("handlers get the authorize result, and authorize gets the operation's scope", async () => {
    scopesSeen.length = 0;
    expect((await call("POST", "/v1/notes", '{"title":"ab"}')).body.body).toBe("u1");
    expect(scopesSeen).toEqual(["notes:write"]);
  });

  it("authorize runs before validation and its ApiError becomes the error body", async () => {
    const res = await call("POST", "/v1/notes", "{", { authorization: "Bearer bad" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "missing key", code: "unauthorized" });
  });

  it("handler ApiErrors become the error body", async () => {
    const res = await call("GET", "/v1/notes/abc");
    expect(res).toMatchObject({ status: 404, body: { code: "not_found", error: "note abc not found" } });
  });

  it("an operation without a handler answers 501 not_implemented", async () => {
    const res = await call("GET", "/v1/tags/abc/notes");
    expect(res).toMatchObject({ status: 501, body: { code: "not_implemented" } });
  });

  it.each([
    ["PUT", "/v1/notes", "GET, HEAD, POST"],
    ["PATCH", "/v1/notes/1", "DELETE, GET, HEAD"],
    ["POST", "/v1/tags/ab/notes", "GET, HEAD"],
  ])("%s %s is 405 with Allow", async (method, path, allow) => {
    const res = await call(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.body.code).toBe("method_not_allowed");
  });

  it("an unknown path is 404 with the error body", async () => {
    const res = await call("GET", "/v1/nothing-here");
    expect(res).toMatchObject({ status: 404, body: { code: "not_found" } });
  });
});
