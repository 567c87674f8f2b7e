// CORS answers only listed origins, only under /v1, preflights without a key; never on webmail.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

const allowed = "https://app.example.org";
let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform({ corsOrigins: [allowed] });
  t = await p.newTenant("cors");
});
afterAll(() => p.stop());

describe("CORS", () => {
  it("answers a preflight from a listed origin with 204 and the allowed headers, without a key", async () => {
    const res = await fetch(`${p.url}/v1/mailboxes`, { method: "OPTIONS", headers: { origin: allowed, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(allowed);
    expect(res.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE");
    expect(res.headers.get("vary")).toBe("Origin");
  });

  it("exposes the rate-limit headers on a keyed answer to a listed origin", async () => {
    const res = await t.api("GET", "/v1/mailboxes", undefined, { origin: allowed });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(allowed);
    expect(res.headers.get("access-control-expose-headers")).toContain("RateLimit-Remaining");
  });

  it("gives nothing to an origin that is not listed, and a preflight from it is not a 204", async () => {
    const res = await t.api("GET", "/v1/mailboxes", undefined, { origin: "https://evil.example.org" });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await fetch(`${p.url}/v1/mailboxes`, { method: "OPTIONS", headers: { origin: "https://evil.example.org", "access-control-request-method": "GET" } });
    expect(pre.status).not.toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("never answers cross-origin outside the API (webmail uses a cookie)", async () => {
    const res = await fetch(`${p.url}/webmail`, { headers: { origin: allowed } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("CORS_ORIGINS takes a comma-separated list of origins and refuses anything else", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://a.example.org, http://127.0.0.1:3000" }, "/tmp").corsOrigins).toEqual(["https://a.example.org", "http://127.0.0.1:3000"]);
    expect(loadConfig({ CORS_ORIGINS: "*" }, "/tmp").corsOrigins).toEqual(["*"]);
    expect(() => loadConfig({ CORS_ORIGINS: "https://a.example.org/path" }, "/tmp")).toThrow(/not an origin/);
    expect(() => loadConfig({ CORS_ORIGINS: "a.example.org" }, "/tmp")).toThrow(/not an origin/);
  });
});
