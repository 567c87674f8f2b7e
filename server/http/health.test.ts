// Liveness and readiness (decision OP1) on the real server: no key, no data, and readiness that
// follows what the instance can do, not a constant.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
});
afterAll(async () => {
  await p?.stop().catch(() => {});
});

it("both answer without a key, with nothing but their status, and are not cached", async () => {
  for (const [path, body] of [["/healthz", { status: "ok" }], ["/readyz", { status: "ready" }]] as const) {
    const res = await fetch(`${p.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual(body);
    expect((await fetch(`${p.url}${path}`, { method: "HEAD" })).status).toBe(200);
  }
});

it("readiness fails (503, the error body, what failed) when the store stops answering; liveness does not", async () => {
  await p.services.backend.close();
  const ready = await fetch(`${p.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ error: "not ready: store", code: "not_ready", details: { failing: ["store"] } });
  expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
});
