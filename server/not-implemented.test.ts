// Every operation has a handler now (no 501 left); what stays here is the pages around the API
// and the router's 405/404/415 answers with the error body.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "./test/harness.ts";

let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("later");
});
afterAll(() => p.stop());

it("serves the contract, the docs and 405/404 with the error body", async () => {
  const contract = await fetch(`${p.url}/openapi.json`);
  expect((await contract.json()).info.version).toBe("1.0.0");
  const docs = await fetch(`${p.url}/docs`);
  expect(docs.headers.get("content-type")).toContain("text/html");
  const wrong = await t.api("PUT", "/v1/mailboxes");
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get("allow")).toBe("GET, HEAD, POST");
  expect((await t.api("GET", "/v2/nothing")).body.code).toBe("not_found");
  const form = await t.api("POST", "/v1/mailboxes", "name=x", { "content-type": "application/x-www-form-urlencoded" });
  expect(form.status).toBe(415);
  expect(form.body.code).toBe("unsupported_media_type");
});
