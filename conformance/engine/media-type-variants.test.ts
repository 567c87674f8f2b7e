// Issue 39 item 5: an operation whose body accepts JSON, a form and multipart is sent all three,
// each encoded as its media type says, and a server that breaks on the one the suite used to leave
// out (it only ever sent the first) fails the run.
import { describe, expect, it } from "vitest";
import { json, runOn } from "../fixtures/run-on.ts";
import type { Answer } from "../fixtures/recording-server.ts";

const schema = { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1, maxLength: 12 }, size: { type: "integer", minimum: 0, maximum: 9 } } };
const doc = {
  openapi: "3.1.0",
  info: { title: "media", version: "1" },
  paths: {
    "/things": {
      post: {
        operationId: "createThing",
        requestBody: { required: true, content: { ...json(schema), "application/x-www-form-urlencoded": { schema }, "multipart/form-data": { schema } } },
        responses: { "201": { description: "made", content: json({ type: "object" }) }, "400": { description: "bad", content: json({ type: "object" }) } },
      },
    },
  },
};

const kind = (ct: string | undefined) => (ct ?? "").split(";")[0];
// Reads each media type as a real server would and answers 201 when `name` is there.
const correct: Answer = (r) => {
  const text = r.body.toString();
  const ct = kind(r.headers["content-type"]);
  let name: unknown;
  if (ct === "application/json") name = (() => { try { return JSON.parse(text)?.name; } catch { return undefined; } })();
  else if (ct === "application/x-www-form-urlencoded") name = new URLSearchParams(text).get("name");
  else if (ct === "multipart/form-data") name = /name="name"\r\n(?:[^\r\n]+\r\n)*\r\n([^\r\n]*)/.exec(text)?.[1];
  return typeof name === "string" && name.length ? { status: 201, body: {} } : { status: 400, body: { error: "bad" } };
};

describe("every accepted media type of a request body is drawn", () => {
  it("sends JSON, form and multipart bodies, and a correct server passes", async () => {
    const { failures, requests } = await runOn(doc, correct, { mode: "positive", checks: ["not_a_server_error", "positive_data_acceptance", "status_code_conformance"] });
    expect(new Set(requests.map((r) => kind(r.headers["content-type"])))).toEqual(new Set(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]));
    expect(failures).toEqual([]);
  });

  it("a server that answers 500 to form bodies fails", async () => {
    const brokenForms: Answer = (r) => (kind(r.headers["content-type"]) === "application/x-www-form-urlencoded" ? { status: 500, body: { error: "boom" } } : correct(r));
    const { failures } = await runOn(doc, brokenForms, { mode: "positive", checks: ["not_a_server_error"] });
    expect(failures).toEqual([expect.stringMatching(/^not_a_server_error createThing: \[500\]/)]);
  });
});
