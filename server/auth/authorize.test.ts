// The authorize hook on its own, with a clock the test sets and a key store in memory: the exact
// challenge, error text and headers of every refusal, which quota ran out, when it comes back, and
// that the order key -> rate limit -> quota -> scope holds (a refused scope still counts).
import type { FastifyReply, FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../generated/server/errors.ts";
import { hashApiKey } from "./api-key.ts";
import { createAuthorize } from "./authorize.ts";
import type { ApiKeyRecord, KeyRepository, QuotaCounter } from "./key-repository.ts";
import { FixedWindowRateLimiter } from "./rate-limiter.ts";

const KEY = `platform_sk_${"A".repeat(32)}`;
const REALM = 'Bearer realm="platform-api"';

/** Counts per (key, period) like the SQLite store: all counters or none. */
class MemoryKeys implements Pick<KeyRepository, "findByHash" | "consumeQuota"> {
  readonly usage = new Map<string, number>();
  private readonly record: ApiKeyRecord;
  constructor(record: ApiKeyRecord) {
    this.record = record;
  }
  async findByHash(hash: string) {
    return hash === hashApiKey(KEY) ? this.record : undefined;
  }
  async consumeQuota(keyId: string, counters: QuotaCounter[]) {
    for (const c of counters) if ((this.usage.get(`${keyId} ${c.period}`) ?? 0) >= c.limit) return c;
    for (const c of counters) this.usage.set(`${keyId} ${c.period}`, (this.usage.get(`${keyId} ${c.period}`) ?? 0) + 1);
    return null;
  }
}

function setup(key: Partial<ApiKeyRecord> = {}, start = "2026-03-10T12:00:00.000Z") {
  const record: ApiKeyRecord = {
    id: "key_1", projectId: "prj_1", name: "k", hint: "platform_sk_AAAA…", scopes: ["mail:send", "dns:read"],
    rateLimit: 100, dailyQuota: null, monthlyQuota: null, createdAt: "2026-01-01T00:00:00Z", revokedAt: null, ...key,
  };
  let t = Date.parse(start);
  const keys = new MemoryKeys(record);
  const authorize = createAuthorize({ keys: keys as unknown as KeyRepository, limiter: new FixedWindowRateLimiter(() => t), now: () => new Date(t) });
  const call = async (scope: string | null = "mail:send", authorization: string | null = `Bearer ${KEY}`) => {
    const headers: Record<string, unknown> = {};
    const reply = { header: (k: string, v: unknown) => ((headers[k] = v), reply) } as unknown as FastifyReply;
    const request = { headers: authorization === null ? {} : { authorization } } as FastifyRequest;
    try {
      return { ok: await authorize({ request, reply, scope }), headers };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { error: { status: error.statusCode, code: error.code, message: error.message, headers: error.headers }, headers };
    }
  };
  return { call, keys, set: (iso: string) => void (t = Date.parse(iso)), advance: (ms: number) => void (t += ms) };
}

describe("authorize: authentication", () => {
  it.each([
    ["no header", null, "missing Authorization header; send Authorization: Bearer platform_sk_...", REALM],
    ["another scheme", "Basic dXNlcjpwYXNz", "Authorization must be Bearer platform_sk_...", REALM],
    ["a scheme that only starts with Bearer", "Bearerish platform_sk_x", "Authorization must be Bearer platform_sk_...", REALM],
    ["Bearer later in the header", "Token Bearer platform_sk_x", "Authorization must be Bearer platform_sk_...", REALM],
    ["Bearer and nothing", "Bearer", "Authorization must be Bearer platform_sk_...", `${REALM}, error="invalid_token", error_description="Authorization must be Bearer platform_sk_..."`],
    ["a lowercase bearer with a malformed key", "bearer not-a-key", "malformed API key; keys look like platform_sk_...", `${REALM}, error="invalid_token", error_description="malformed API key; keys look like platform_sk_..."`],
    ["an unknown key", `Bearer platform_sk_${"B".repeat(32)}`, "unknown API key", `${REALM}, error="invalid_token", error_description="unknown API key"`],
  ])("%s: 401 with its reason and challenge, no RateLimit headers", async (_n, header, message, challenge) => {
    const { call } = setup();
    const r = await call("mail:send", header);
    expect(r.error).toEqual({ status: 401, code: "unauthorized", message, headers: { "WWW-Authenticate": challenge } });
    expect(r.headers).toEqual({});
  });

  it("a revoked key: 401 invalid_token, this API key has been revoked", async () => {
    const { call } = setup({ revokedAt: "2026-03-01T00:00:00Z" });
    expect((await call()).error).toEqual({
      status: 401, code: "unauthorized", message: "this API key has been revoked",
      headers: { "WWW-Authenticate": `${REALM}, error="invalid_token", error_description="this API key has been revoked"` },
    });
  });
});

describe("authorize: rate limit", () => {
  it("every keyed answer carries the exact RateLimit headers", async () => {
    const { call, advance } = setup({ rateLimit: 3 });
    expect((await call()).headers).toEqual({ "RateLimit-Limit": 3, "RateLimit-Remaining": 2, "RateLimit-Reset": 60 });
    advance(15_500);
    expect((await call()).headers).toEqual({ "RateLimit-Limit": 3, "RateLimit-Remaining": 1, "RateLimit-Reset": 45 });
  });

  it("past the limit: 429 rate_limited, Retry-After the seconds to the window's end, then admitted again", async () => {
    const { call, advance } = setup({ rateLimit: 2 });
    await call();
    await call();
    advance(20_000);
    const r = await call();
    expect(r.error).toEqual({ status: 429, code: "rate_limited", message: "rate limit of 2 requests per minute exceeded", headers: { "Retry-After": 40 } });
    expect(r.headers).toEqual({ "RateLimit-Limit": 2, "RateLimit-Remaining": 0, "RateLimit-Reset": 40 });
    advance(40_000);
    expect((await call()).ok).toBeDefined();
  });

  it("a request refused for its scope still counts (no free probing of scopes) and carries the headers", async () => {
    const { call } = setup({ rateLimit: 2 });
    const r = await call("dns:write");
    expect(r.error?.status).toBe(403);
    expect(r.headers).toEqual({ "RateLimit-Limit": 2, "RateLimit-Remaining": 1, "RateLimit-Reset": 60 });
  });
});

describe("authorize: quotas", () => {
  it("a daily quota: 429 quota_exceeded naming the daily quota, Retry-After to UTC midnight, fresh the next day", async () => {
    const { call, set } = setup({ dailyQuota: 2 });
    set("2026-03-31T23:59:20.500Z");
    expect((await call()).ok).toBeDefined();
    expect((await call()).ok).toBeDefined();
    expect((await call()).error).toEqual({ status: 429, code: "quota_exceeded", message: "daily quota of 2 requests exhausted", headers: { "Retry-After": 40 } });
    set("2026-04-01T00:00:00.000Z"); // a new day, in a new month too
    expect((await call()).ok).toBeDefined();
  });

  it("a daily quota is per UTC day, not per month", async () => {
    const { call, set } = setup({ dailyQuota: 1 });
    set("2026-03-10T08:00:00Z");
    await call();
    set("2026-03-11T08:00:00Z");
    expect((await call()).ok).toBeDefined();
    set("2026-03-11T23:59:59.999Z");
    expect((await call()).error?.headers).toEqual({ "Retry-After": 1 });
  });

  it("a monthly quota: named monthly, Retry-After to the first of next month UTC, fresh then and not the next day", async () => {
    const { call, set } = setup({ monthlyQuota: 1 });
    set("2026-02-27T00:00:00.000Z");
    expect((await call()).ok).toBeDefined();
    expect((await call()).error).toEqual({ status: 429, code: "quota_exceeded", message: "monthly quota of 1 requests exhausted", headers: { "Retry-After": 2 * 86_400 } });
    set("2026-02-28T12:00:00.000Z");
    expect((await call()).error?.message).toBe("monthly quota of 1 requests exhausted");
    set("2026-03-01T00:00:00.000Z");
    expect((await call()).ok).toBeDefined();
  });

  it("a monthly quota rolls over at the year's end", async () => {
    const { call, set } = setup({ monthlyQuota: 1 });
    set("2026-12-31T23:59:58.250Z");
    await call();
    expect((await call()).error?.headers).toEqual({ "Retry-After": 2 });
    set("2027-01-01T00:00:00.000Z");
    expect((await call()).ok).toBeDefined();
  });

  it("with both quotas, the one that ran out is the one named", async () => {
    const monthly = setup({ dailyQuota: 5, monthlyQuota: 1 });
    await monthly.call();
    expect((await monthly.call()).error?.message).toBe("monthly quota of 1 requests exhausted");
    const daily = setup({ dailyQuota: 1, monthlyQuota: 5 });
    await daily.call();
    expect((await daily.call()).error?.message).toBe("daily quota of 1 requests exhausted");
    // The refused request counted against neither.
    expect([...daily.keys.usage.values()]).toEqual([1, 1]);
  });

  it("no quota: never exhausted", async () => {
    const { call } = setup();
    for (let i = 0; i < 5; i++) expect((await call()).ok).toBeDefined();
  });

  it("without an injected clock, periods follow the wall clock", async () => {
    const keys = new MemoryKeys({
      id: "key_1", projectId: "prj_1", name: "k", hint: "", scopes: [], rateLimit: 100, dailyQuota: 1, monthlyQuota: null, createdAt: "", revokedAt: null,
    });
    const authorize = createAuthorize({ keys: keys as unknown as KeyRepository, limiter: new FixedWindowRateLimiter() });
    const request = { headers: { authorization: `Bearer ${KEY}` } } as FastifyRequest;
    const reply = { header: () => reply } as unknown as FastifyReply;
    await authorize({ request, reply, scope: null });
    const refused = await (async () => authorize({ request, reply, scope: null }))().catch((e: ApiError) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe("quota_exceeded");
    expect([...keys.usage.keys()][0]).toMatch(/^key_1 d:\d{4}-\d{2}-\d{2}$/);
  });
});

describe("authorize: scope", () => {
  it("a key holding the scope gets its project, key id and scopes", async () => {
    const { call } = setup();
    expect((await call("dns:read")).ok).toEqual({ projectId: "prj_1", keyId: "key_1", scopes: ["mail:send", "dns:read"] });
  });

  it("an operation without a scope needs only a valid key", async () => {
    const { call } = setup({ scopes: [] });
    expect((await call(null)).ok).toEqual({ projectId: "prj_1", keyId: "key_1", scopes: [] });
  });

  it("a missing scope: 403 forbidden naming it, with the insufficient_scope challenge", async () => {
    const { call } = setup();
    expect((await call("dns:write")).error).toEqual({
      status: 403, code: "forbidden", message: "this key lacks the scope dns:write",
      headers: { "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="dns:write"` },
    });
  });
});

describe("authorize: answered from memory", () => {
  // A cached key is not read from the store again; the answers from the cache must be exactly
  // those of a read from the store, revocation included.
  class Store extends MemoryKeys {
    revoked = false;
    reads = 0;
    async list() {
      return [];
    }
    async create(): Promise<ApiKeyRecord> {
      throw new Error("unused");
    }
    async revoke() {
      this.revoked = true;
      return true;
    }
    async findByHash(hash: string) {
      this.reads++;
      const found = await super.findByHash(hash);
      return found && this.revoked ? { ...found, revokedAt: "2026-03-10T12:00:00Z" } : found;
    }
  }
  const record: ApiKeyRecord = {
    id: "key_1", projectId: "prj_1", name: "k", hint: "", scopes: ["mail:send"], rateLimit: 2, dailyQuota: null, monthlyQuota: null, createdAt: "", revokedAt: null,
  };

  it("a cached key is authorized without reading the store, and refused as a read key is", async () => {
    const { CachedKeyRepository } = await import("./cached-key-repository.ts");
    const store = new Store(record);
    const keys = new CachedKeyRepository(store as unknown as KeyRepository, () => false);
    const sync = createAuthorize({ keys, limiter: new FixedWindowRateLimiter() });
    // The hook may answer or throw at once (the generated routes take both); as a promise here.
    const authorize = async (input: Parameters<typeof sync>[0]) => sync(input);
    const headers: Record<string, unknown> = {};
    const reply = { header: (k: string, v: unknown) => ((headers[k] = v), reply) } as unknown as FastifyReply;
    const request = { headers: { authorization: `Bearer ${KEY}` } } as FastifyRequest;
    // First request: read from the store; the second from the cache, answered at once (no promise).
    expect(await authorize({ request, reply, scope: "mail:send" })).toEqual({ projectId: "prj_1", keyId: "key_1", scopes: ["mail:send"] });
    expect(sync({ request, reply, scope: "mail:send" })).toEqual({ projectId: "prj_1", keyId: "key_1", scopes: ["mail:send"] });
    expect(store.reads).toBe(1);
    expect(headers["RateLimit-Remaining"]).toBe(0);
    // The limit, the scope and a revocation are refused from the cache as from the store.
    await expect(authorize({ request, reply, scope: "mail:send" })).rejects.toMatchObject({ code: "rate_limited" });
    const otherSync = createAuthorize({ keys, limiter: new FixedWindowRateLimiter() });
    const other = async (input: Parameters<typeof otherSync>[0]) => otherSync(input);
    await expect(other({ request, reply, scope: "dns:read" })).rejects.toMatchObject({ code: "forbidden" });
    expect(store.reads).toBe(1);
    await keys.revoke("key_1");
    await expect(other({ request, reply, scope: "mail:send" })).rejects.toMatchObject({ statusCode: 401, message: "this API key has been revoked" });
    expect(store.reads).toBe(2);
  });
});
