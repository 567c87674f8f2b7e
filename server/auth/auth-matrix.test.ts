// The auth, scope, isolation and rate-limit matrix, through HTTP on a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlKeyRepository } from "./key-repository.ts";
import { apiFor, startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  a = await p.newTenant("alpha");
  b = await p.newTenant("beta");
});
afterAll(() => p.stop());

const operations = () => (p.openapi.paths as Record<string, Record<string, { operationId: string; "x-platform-scope": string }>>);

describe("authentication", () => {
  // RFC 6750 §3: the challenge names no error when no bearer token came, invalid_token when one was refused.
  it.each([
    ["no Authorization header", undefined, 'Bearer realm="platform-api"'],
    ["a non-Bearer scheme", "Basic dXNlcjpwYXNz", 'Bearer realm="platform-api"'],
    ["a malformed key", "Bearer not-a-key", 'Bearer realm="platform-api", error="invalid_token", error_description="malformed API key; keys look like platform_sk_..."'],
    ["an empty bearer", "Bearer ", 'Bearer realm="platform-api", error="invalid_token", error_description="Authorization must be Bearer platform_sk_..."'],
    ["an unknown key", "Bearer platform_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 'Bearer realm="platform-api", error="invalid_token", error_description="unknown API key"'],
  ])("%s is 401 unauthorized with the error body and WWW-Authenticate", async (_n, header, challenge) => {
    const res = await apiFor(p.url, undefined)("GET", "/v1/mailboxes", undefined, header ? { authorization: header } : {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String), code: "unauthorized" });
    expect(res.headers.get("www-authenticate")).toBe(challenge);
  });

  it("a revoked key is 401 invalid_token", async () => {
    const t = await p.newTenant("revoked");
    expect((await t.api("GET", "/v1/mailboxes")).status).toBe(200);
    const [key] = await p.services.keys.list(t.projectId);
    await p.services.keys.revoke(key.id);
    const res = await t.api("GET", "/v1/mailboxes");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="platform-api", error="invalid_token", error_description="this API key has been revoked"');
  });

  it("a key revoked by another process (the console) is 401 on the next request", async () => {
    const t = await p.newTenant("console-revoked");
    expect((await t.api("GET", "/v1/mailboxes")).status).toBe(200); // now cached in the server
    const other = new DatabaseSync(path.join(p.dataDir, "platform.sqlite"));
    const keys = new SqlKeyRepository(storeOnSqlite(other));
    const [key] = await keys.list(t.projectId);
    await keys.revoke(key.id);
    other.close();
    expect((await t.api("GET", "/v1/mailboxes")).status).toBe(401);
  });

  it("every operation of the contract refuses a request without a key", async () => {
    const anon = apiFor(p.url, undefined);
    for (const [path, item] of Object.entries(operations())) {
      for (const method of Object.keys(item)) {
        const url = path.replace(/\{[^}]+\}/g, "x1");
        const res = await anon(method.toUpperCase(), url);
        expect(res.status, `${method} ${path}`).toBe(401);
      }
    }
  });
});

describe("scopes", () => {
  it("every operation answers 403 forbidden to a key without its scope, and not to one with it", async () => {
    const t = await p.newTenant("scoped", { scopes: ["dns:read"] });
    for (const [path, item] of Object.entries(operations())) {
      for (const [method, op] of Object.entries(item)) {
        const res = await t.api(method.toUpperCase(), path.replace(/\{[^}]+\}/g, "x1"));
        if (op["x-platform-scope"] === "dns:read") expect(res.status, `${method} ${path}`).not.toBe(403);
        else {
          expect(res.body.code, `${method} ${path}`).toBe("forbidden");
          expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="platform-api", error="insufficient_scope", scope="${op["x-platform-scope"]}"`);
        }
      }
    }
  });
});

describe("tenant isolation", () => {
  it("another project's resources answer 404 not_found, exactly like missing ones", async () => {
    const mbx = await a.api("POST", "/v1/mailboxes", { name: "secret", domain: a.domain, password: "correct horse" });
    const grp = await a.api("POST", "/v1/groups", { name: "secretgrp", domain: a.domain });
    const hook = await a.api("POST", "/v1/webhooks", { url: "https://hooks.example.org/a" });
    const rec = await a.api("POST", `/v1/dns/${a.domain}/records`, { type: "A", name: "www", data: "192.0.2.1" });
    const cases: [string, string, unknown?][] = [
      ["DELETE", `/v1/mailboxes/${mbx.body.id}`],
      ["POST", `/v1/mailboxes/${mbx.body.id}/shared`, { shared: true }],
      ["DELETE", `/v1/groups/${grp.body.id}`],
      ["GET", `/v1/groups/${grp.body.id}/members`],
      ["GET", `/v1/maildomains/${a.domain}`],
      ["GET", `/v1/dns/${a.domain}/records`],
      ["POST", `/v1/dns/${a.domain}/records`, { type: "A", name: "evil", data: "192.0.2.66" }],
      ["DELETE", `/v1/dns/${a.domain}/records/${rec.body.id}`],
      ["DELETE", `/v1/webhooks/${hook.body.id}`],
      ["GET", `/v1/webhooks/${hook.body.id}/deliveries`],
    ];
    for (const [method, url, body] of cases) {
      const foreign = await b.api(method, url, body);
      const missing = await b.api(method, url.replace(/(mbx|grp|whk)_[a-z0-9]+/, "$1_doesnotexist1").replace(a.domain, "nothing.test"), body);
      expect(foreign.status, `${method} ${url}`).toBe(404);
      expect(foreign.body.code).toBe("not_found");
      expect(missing.status, `${method} ${url} (missing)`).toBe(404);
    }
    // Body references to another project's resources are 400, like unknown names (decision E2).
    expect((await b.api("POST", "/v1/mailboxes", { name: "x1", domain: a.domain, password: "correct horse" })).status).toBe(400);
    expect((await b.api("POST", "/v1/webmail/login-link", { mailbox: `secret@${a.domain}` })).status).toBe(400);
    // Lists show only the caller's own resources, and A's resources are untouched.
    expect(JSON.stringify((await b.api("GET", "/v1/mailboxes")).body)).not.toContain(a.domain);
    expect((await b.api("GET", "/v1/webhooks")).body.webhooks).toEqual([]);
    expect((await b.api("GET", "/v1/maildomains")).body.domains.map((d: { name: string }) => d.name)).toEqual([b.domain]);
    expect((await a.api("GET", `/v1/dns/${a.domain}/records`)).body.records.some((r: { name: string }) => r.name === "evil")).toBe(false);
    expect((await a.api("GET", "/v1/mailboxes")).body.mailboxes.some((m: { id: string }) => m.id === mbx.body.id)).toBe(true);
  });
});

describe("rate limits and quotas", () => {
  it("carries RateLimit headers on every keyed response: 200, 400, 403, 404", async () => {
    const t = await p.newTenant("headers", { scopes: ["mail:mailboxes"], rateLimit: 50 });
    const answers = [
      await t.api("GET", "/v1/mailboxes"),
      await t.api("POST", "/v1/mailboxes", { name: "A" }),
      await t.api("GET", "/v1/webhooks"),
      await t.api("DELETE", "/v1/mailboxes/mbx_nothing"),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 403, 404]);
    answers.forEach((r, i) => {
      expect(r.headers.get("ratelimit-limit")).toBe("50");
      expect(r.headers.get("ratelimit-remaining")).toBe(String(49 - i));
      expect(Number(r.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60);
    });
  });

  it("admits exactly the limit under concurrency; the rest is 429 with Retry-After", async () => {
    const t = await p.newTenant("burst", { rateLimit: 25 });
    const results = await Promise.all(Array.from({ length: 80 }, () => t.api("GET", "/v1/mailboxes")));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(25);
    expect(limited).toHaveLength(55);
    for (const r of limited) {
      expect(r.body.code).toBe("rate_limited");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get("ratelimit-remaining")).toBe("0");
    }
    expect(new Set(ok.map((r) => r.headers.get("ratelimit-remaining"))).size).toBe(25);
  });

  it("the default limit is 120 per minute", async () => {
    const t = await p.newTenant("default");
    expect((await t.api("GET", "/v1/mailboxes")).headers.get("ratelimit-limit")).toBe("120");
  });

  it("a daily quota answers 429 quota_exceeded once used up, with Retry-After to the next UTC day", async () => {
    const t = await p.newTenant("quota", { dailyQuota: 3, rateLimit: 100 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await t.api("GET", "/v1/mailboxes"));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(statuses[3].body.code).toBe("quota_exceeded");
    const retry = Number(statuses[3].headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(86400);
  });

  it("a monthly quota is exact under concurrency", async () => {
    const t = await p.newTenant("monthly", { monthlyQuota: 7, rateLimit: 100 });
    const results = await Promise.all(Array.from({ length: 20 }, () => t.api("GET", "/v1/mailboxes")));
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    expect(results.filter((r) => r.body.code === "quota_exceeded")).toHaveLength(13);
  });

  it("a request refused by the rate limit does not count against the quota", async () => {
    const t = await p.newTenant("both", { rateLimit: 2, dailyQuota: 3 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.api("GET", "/v1/mailboxes")).body.code ?? "ok");
    expect(statuses).toEqual(["ok", "ok", "rate_limited", "rate_limited"]);
    const [key] = await p.services.keys.list(t.projectId);
    const used = p.db.prepare("SELECT SUM(count) AS n FROM key_usage WHERE key_id = ?").get(key.id) as { n: number };
    expect(used.n).toBe(2);
  });
});
