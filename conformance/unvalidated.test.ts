// Issue 19 item 4: a schema ajv cannot compile used to make everything "valid", silently (OpenAI:
// 38 responses never checked, 7 false failures). Now the schema is named by JSON pointer in a
// WARNING, and the checks that need it report the pair "unvalidated", never "passed": in the
// console summary, the JSON report and JUnit (skipped).
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { main } from "./cli.ts";

const contract = {
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {
    "/things": { get: { operationId: "listThings", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } } } },
    "/fine": { get: { operationId: "getFine", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } } },
  },
  components: {
    schemas: {
      // An unterminated class: no regular expression engine reads it, with or without the u flag.
      Code: { type: "string", pattern: "^([A-Z" },
      Thing: { type: "object", required: ["code"], properties: { code: { $ref: "#/components/schemas/Code" } } },
    },
  },
};

let server: http.Server;
let baseUrl: string;
let dir: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ code: 42 })));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(path.join(tmpdir(), "unvalidated-"));
  await writeFile(path.join(dir, "contract.json"), JSON.stringify(contract));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

test("a schema ajv cannot compile is named, and the check that needs it neither passes nor fails", async () => {
  const out: string[] = [];
  vi.spyOn(console, "log").mockImplementation((m: unknown) => void out.push(String(m)));
  const args = ["run", "--spec", path.join(dir, "contract.json"), "--base-url", baseUrl, "--checks", "response_schema_conformance", "--max-examples", "3", "--seed", "1"];
  const code = await main([...args, "--report", "json,junit", "--report-dir", dir]);
  vi.restoreAllMocks();
  const text = out.join("\n");
  expect(text).toMatch(/WARNING schema #\/components\/schemas\/Code cannot be compiled \(.*Invalid regular expression/);
  expect(text).toMatch(/WARNING unvalidated response_schema_conformance listThings: not judged, #\/components\/schemas\/Code: /);
  // getFine passed; listThings (whose body, 42 for a string, would fail) is not called a pass
  expect(out.at(-1)).toBe("1 passed, 0 failed, 1 unvalidated");
  expect(code).toBe(0);
  const report = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
  expect(report.summary).toEqual({ passed: 1, failed: 0, unvalidated: 1 });
  expect(report.unvalidated).toEqual([{ operationId: "listThings", check: "response_schema_conformance", reason: expect.stringContaining("#/components/schemas/Code") }]);
  const junit = await readFile(path.join(dir, "junit.xml"), "utf8");
  expect(junit).toMatch(/<testcase classname="listThings" name="response_schema_conformance"><skipped message="unvalidated: #\/components\/schemas\/Code/);
});

// Issue 29 item 2: a dangling reference was read as "any value", so a response schema that points
// at nothing gave "passed" (kube-openapi: 89 dangling refs, 224 passes). Now it is a warning naming
// the pointer, and every check that needs what it describes says "unvalidated".
test("a reference that points at nothing is named, and the checks that need it are unvalidated, never passed", async () => {
  const dangling = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/things": { get: { operationId: "listThings", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Missing" } } } } } } },
      "/other": { get: { operationId: "getOther", responses: { "200": { $ref: "#/components/responses/Gone" } } } },
      "/deep": { get: { operationId: "getDeep", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { code: { $ref: "#/components/schemas/Nope" } } } } } } } } },
      "/fine": { get: { operationId: "getFine", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } } },
    },
  };
  await writeFile(path.join(dir, "dangling.json"), JSON.stringify(dangling));
  const out: string[] = [];
  vi.spyOn(console, "log").mockImplementation((m: unknown) => void out.push(String(m)));
  const code = await main(["run", "--spec", path.join(dir, "dangling.json"), "--base-url", baseUrl, "--checks", "response_schema_conformance,content_type_conformance", "--max-examples", "2", "--seed", "1", "--report", "json", "--report-dir", dir]);
  vi.restoreAllMocks();
  const text = out.join("\n");
  expect(text).toContain("WARNING contract #/paths/~1things/get/responses/200/content/application~1json/schema: reference #/components/schemas/Missing points at nothing");
  expect(text).toContain("WARNING contract #/paths/~1other/get/responses/200: reference #/components/responses/Gone points at nothing");
  expect(text).toContain("WARNING contract #/paths/~1deep/get/responses/200/content/application~1json/schema/properties/code: reference #/components/schemas/Nope points at nothing");
  // passed: content types of listThings, getDeep and getFine, and getFine's schema
  expect(out.at(-1)).toBe("4 passed, 0 failed, 4 unvalidated");
  expect(code).toBe(0);
  const report = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
  expect(report.unvalidated.map((u: any) => `${u.operationId} ${u.check}`).sort()).toEqual([
    "getDeep response_schema_conformance",
    "getOther content_type_conformance",
    "getOther response_schema_conformance",
    "listThings response_schema_conformance",
  ]);
  expect(report.unvalidated.find((u: any) => u.operationId === "getDeep").reason).toBe("#/paths/~1deep/get/responses/200/content/application~1json/schema/properties/code: reference #/components/schemas/Nope points at nothing");
});
