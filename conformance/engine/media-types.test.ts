// Request bodies are written per media type and read back by a real parser (undici's, behind
// `Request.formData()`), on loopback: form bodies with `encoding` style/explode and a `%` in a
// value, multipart with a binary file and per-part Content-Type, text; media types the suite
// cannot produce are skipped with one warning. Negative cases are mutated as values and still
// encoded per media type. Before, every body went out as JSON text under its declared type.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRecordingServer, type Recorded, type RecordingServer } from "../fixtures/recording-server.ts";
import fc from "fast-check";
import { caseIsValid, positiveCaseArb } from "./case-arbitrary.ts";
import { buildContract } from "./load-contract.ts";
import { encodeForm, encodeMultipart } from "./media-types.ts";
import { prepareRequest } from "./request.ts";
import { run } from "./runner.ts";
import { validateParam } from "./validator.ts";

/** What a server's multipart/urlencoded parser makes of the bytes. */
async function parsed(body: string, contentType: string): Promise<FormData> {
  return new Request("http://127.0.0.1/", { method: "POST", body, headers: { "content-type": contentType } }).formData();
}

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const callSchema = {
  type: "object",
  required: ["To", "From", "Url"],
  properties: {
    To: { type: "string", minLength: 1 },
    From: { type: "string", minLength: 1 },
    Url: { type: "string", format: "uri" },
    Timeout: { type: "integer", minimum: 1, maximum: 600 },
    Record: { type: "boolean" },
    StatusCallbackEvent: { type: "array", items: { type: "string", enum: ["initiated", "ringing", "answered", "completed"] } },
  },
};
const uploadSchema = {
  type: "object",
  required: ["file", "purpose"],
  properties: {
    file: { type: "string", format: "binary" },
    purpose: { type: "string", enum: ["assistants", "fine-tune"] },
    chunk: { type: "integer", minimum: 1, maximum: 10 },
  },
};
const doc = {
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {
    "/Calls.json": { post: { operationId: "createCall", requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: callSchema } } }, responses: ok } },
    "/files": {
      post: {
        operationId: "createFile",
        requestBody: { required: true, content: { "multipart/form-data": { schema: uploadSchema, encoding: { file: { contentType: "image/png" } } } } },
        responses: ok,
      },
    },
    "/notes": { post: { operationId: "createNote", requestBody: { required: true, content: { "text/plain": { schema: { type: "string", minLength: 1 } } } }, responses: ok } },
    "/xml": { post: { operationId: "createXml", requestBody: { required: true, content: { "application/xml": { schema: { type: "object" } } } }, responses: ok } },
  },
};

describe("application/x-www-form-urlencoded", () => {
  it("percent-encodes names and values, a % included", async () => {
    const body = encodeForm({ Body: "100% sure & done=yes", "a b": "x+y" });
    expect(body).toBe("Body=100%25%20sure%20%26%20done%3Dyes&a%20b=x%2By");
    const form = await parsed(body, "application/x-www-form-urlencoded");
    expect(form.get("Body")).toBe("100% sure & done=yes");
    expect(form.get("a b")).toBe("x+y");
  });

  it("follows each property's style and explode", async () => {
    const value = { list: ["a", "b"], joined: ["a", "b"], piped: ["a", "b"], metadata: { k: "v", n: { m: 1 } }, expand: ["x", "y"], spread: { p: "1", q: "2" }, kv: { p: "1" }, nothing: null };
    const body = encodeForm(value, {
      joined: { style: "form", explode: false },
      piped: { style: "pipeDelimited", explode: false },
      metadata: { style: "deepObject", explode: true },
      expand: { style: "deepObject", explode: true },
      kv: { style: "form", explode: false },
    });
    const form = await parsed(body, "application/x-www-form-urlencoded");
    expect(form.getAll("list")).toEqual(["a", "b"]);
    expect(form.get("joined")).toBe("a,b");
    expect(form.get("piped")).toBe("a|b");
    expect(form.get("metadata[k]")).toBe("v");
    expect(form.get("metadata[n][m]")).toBe("1");
    expect(form.getAll("expand[0]")).toEqual(["x"]);
    expect(form.get("p")).toBe("1");
    expect(form.get("q")).toBe("2");
    expect(form.get("kv")).toBe("p,1");
    expect(form.has("nothing")).toBe(false); // a form has no null: the field is left out
  });
});

describe("multipart/form-data", () => {
  it("sends files for binary properties with the encoding's Content-Type, fields as text", async () => {
    const value = { file: "PNGDATA", purpose: "assistants", chunk: 3, tags: ["a", "b"], one: ["x"], repeated: ["a", "b"], meta: { x: 1 }, json: { y: [2] }, deep: { anchor: "created_at", days: 7 } };
    const schema = { type: "object", properties: { ...uploadSchema.properties, tags: { type: "array", items: { type: "string" } }, meta: { type: "object" } } };
    const { body, contentType } = encodeMultipart(value, schema, { file: { contentType: "image/png" }, repeated: { style: "form" }, json: { contentType: "application/json" }, deep: { style: "deepObject" } });
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    const form = await parsed(body, contentType);
    const file = form.get("file") as File;
    expect(file).toBeInstanceOf(File);
    expect(file.type).toBe("image/png");
    expect(await file.text()).toBe("PNGDATA");
    expect(form.get("purpose")).toBe("assistants");
    expect(form.get("chunk")).toBe("3");
    // arrays as name[] (one item is still an array to a qs-style reader) unless encoding says
    // style form (repeated name); objects as one application/json part (OpenAPI's default, CL14)
    // unless encoding asks for a style (name[key] parts)
    expect(form.getAll("tags[]")).toEqual(["a", "b"]);
    expect(form.getAll("one[]")).toEqual(["x"]);
    expect(form.getAll("repeated")).toEqual(["a", "b"]);
    expect(form.get("meta")).toBe('{"x":1}');
    expect(body).toMatch(/name="meta"\r\nContent-Type: application\/json\r\n/);
    expect(form.get("meta[x]")).toBeNull();
    expect(form.get("json")).toBe('{"y":[2]}');
    expect(form.get("deep[anchor]")).toBe("created_at");
    expect(form.get("deep[days]")).toBe("7");
  });
});

describe("a run sends every body as its media type says", () => {
  let server: RecordingServer;
  let spec: string;
  beforeAll(async () => {
    server = await startRecordingServer();
    spec = path.join(await mkdtemp(path.join(tmpdir(), "media-")), "openapi.json");
    await writeFile(spec, JSON.stringify(doc));
  });
  afterAll(() => server.close());

  const sent = (p: string): Recorded[] => server.requests.filter((r) => r.url === p && r.method === "POST");
  /** The parsed body as field -> string or string[] (repeated names), what a form-reading server validates. */
  const fields = (form: FormData) => {
    const out: Record<string, unknown> = {};
    for (const k of new Set(form.keys())) {
      const all = form.getAll(k).map((v) => (typeof v === "string" ? v : "(file)"));
      out[k] = k === "StatusCallbackEvent" ? all : all[0];
    }
    return out;
  };

  it("positive cases parse and are valid as the server reads them; negative ones are encoded the same way", async () => {
    const result = await run({ spec, baseUrl: server.url, maxExamples: 20, seed: 5, mode: "all", checks: ["not_a_server_error", "negative_data_rejection"] });
    const calls = sent("/Calls.json");
    expect(calls.length).toBeGreaterThan(10);
    let valid = 0;
    for (const r of calls) {
      // the negative case "required request body missing" sends none
      if (r.headers["content-type"] === undefined && r.body.length === 0) continue;
      expect(r.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      const body = r.body.toString("utf8");
      expect(body.startsWith("{")).toBe(false);
      const form = await parsed(body, "application/x-www-form-urlencoded");
      if (validateParam(callSchema, fields(form) as never)) valid++;
    }
    expect(valid).toBeGreaterThan(0);
    // The recording server accepts everything, so every negative case is a negative_data_rejection failure.
    expect(result.ledger.failures.some((f) => f.operation === "createCall" && f.check === "negative_data_rejection")).toBe(true);

    const uploads = sent("/files");
    expect(uploads.length).toBeGreaterThan(10);
    let files = 0;
    for (const r of uploads) {
      if (r.headers["content-type"] === undefined && r.body.length === 0) continue;
      expect(r.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
      const form = await parsed(r.body.toString("utf8"), String(r.headers["content-type"]));
      const file = form.get("file");
      if (file instanceof File) {
        expect(file.type).toBe("image/png");
        files++;
      }
    }
    expect(files).toBeGreaterThan(0);

    const notes = sent("/notes");
    expect(notes.length).toBeGreaterThan(0);
    for (const r of notes) if (r.body.length) expect(r.headers["content-type"]).toBe("text/plain");
    expect(notes.some((r) => r.body.length > 0 && !r.body.toString().startsWith('"'))).toBe(true);

    expect(sent("/xml")).toEqual([]);
    expect(result.ledger.notices).toContain("createXml: skipped, the suite cannot produce a application/xml request body");
    // Skipped, and said so in the coverage table too: no request, never counted as tested (issue 39 item 3).
    expect(result.ledger.coverage.get("createXml")?.cases).toBe(0);
  });

  it("query objects and arrays follow the parameter's style (Stripe's deepObject) and count as valid", () => {
    const stripe = buildContract({
      openapi: "3.0.0",
      info: { title: "t", version: "1" },
      paths: {
        "/v1/invoices/upcoming": {
          get: {
            operationId: "GetInvoicesUpcoming",
            parameters: [
              { name: "automatic_tax", in: "query", style: "deepObject", explode: true, schema: { type: "object", required: ["enabled"], properties: { enabled: { type: "boolean" } } } },
              { name: "expand", in: "query", style: "deepObject", explode: true, schema: { type: "array", items: { type: "string", maxLength: 5000 } } },
              { name: "ids", in: "query", style: "form", explode: false, schema: { type: "array", items: { type: "string" } } },
            ],
            responses: ok,
          },
        },
      },
    });
    const op = stripe.operations[0];
    const c = { operationId: op.id, pathParams: {}, query: { automatic_tax: { enabled: true }, expand: ["lines", "a%b"], ids: ["x", "y"] }, headers: {}, hasBody: false, mode: "positive" as const };
    const url = new URL(prepareRequest("http://127.0.0.1:1", op, c, {}).url);
    expect([...url.searchParams]).toEqual([["automatic_tax[enabled]", "true"], ["expand[0]", "lines"], ["expand[1]", "a%b"], ["ids", "x,y"]]);
    expect(caseIsValid(op, c)).toBe(true);
    // fails before: objects went out as JSON text, which no value could make valid (a budget warning on Stripe)
    expect(fc.sample(positiveCaseArb(op), { seed: 1, numRuns: 20 })).toHaveLength(20);
  });

  it("a curl line carries the encoded body", () => {
    const op = buildContract(doc).operations.find((o) => o.id === "createCall")!;
    const req = prepareRequest("http://127.0.0.1:1", op, { operationId: op.id, pathParams: {}, query: {}, headers: {}, hasBody: true, body: { To: "+1 555", From: "50%", Url: "https://a.test/x" }, mode: "positive" }, {});
    expect(req.body).toBe("To=%2B1%20555&From=50%25&Url=https%3A%2F%2Fa.test%2Fx");
    expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });
});
