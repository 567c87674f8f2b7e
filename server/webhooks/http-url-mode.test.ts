// The contract's webhook url is https only (production); the development flag accepts http://
// receivers on loopback, and its request validation says so too (docs/decisions.md CR2), through
// real servers in both modes.
import { afterAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../test/harness.ts";

const started: TestPlatform[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
});

describe("webhook url schemes", () => {
  it("production: http:// is 400 by the contract's pattern, https:// is accepted", async () => {
    const p = await startTestPlatform();
    started.push(p);
    const t = await p.newTenant("prod");
    const refused = await t.api("POST", "/v1/webhooks", { url: "http://hooks.example.org/in" });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ path: "body.url", message: expect.stringMatching(/^is not valid: An https URL/) }]);
    expect((await t.api("POST", "/v1/webhooks", { url: "https://hooks.example.org/in" })).status).toBe(200);
  });

  it("development flag: an http:// loopback receiver is accepted", async () => {
    const p = await startTestPlatform({ allowHttpLoopbackWebhooks: true });
    started.push(p);
    const t = await p.newTenant("dev");
    const res = await t.api("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/in" });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe("http://127.0.0.1:9/in");
  });
});
