// Credentials go where each security scheme says, judged by what a loopback server received:
// API keys in header, query or cookie; HTTP Basic and Bearer; OAuth2 and OpenID Connect as bearer
// tokens; one credential per scheme from the config, `keys.all` as the default; an operation's
// `security: []` sends nothing, and of several alternatives the configured one is used. Before,
// everything that was not a header API key or Basic went out as `Authorization: Bearer`.
// A run whose answers are mostly 401/403 says so, like Schemathesis.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  startRecordingServer,
  type Recorded,
  type RecordingServer,
} from "../fixtures/recording-server.ts";
import type { ConformanceConfig } from "./config.ts";
import { withoutCredentials } from "./auth.ts";
import { run } from "./runner.ts";

const ok = {
  "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
  "401": { description: "no" },
  "403": { description: "no" },
};
const get = (operationId: string, security?: Record<string, string[]>[]) => ({
  get: { operationId, ...(security ? { security } : {}), responses: ok },
});
const doc = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  security: [{ bearerAuth: [] }],
  components: {
    securitySchemes: {
      headerKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
      queryKey: { type: "apiKey", in: "query", name: "api_key" },
      cookieKey: { type: "apiKey", in: "cookie", name: "session" },
      basicAuth: { type: "http", scheme: "basic" },
      bearerAuth: { type: "http", scheme: "bearer" },
      oauth: {
        type: "oauth2",
        flows: { clientCredentials: { tokenUrl: "https://auth.test/token", scopes: {} } },
      },
      oidc: {
        type: "openIdConnect",
        openIdConnectUrl: "https://auth.test/.well-known/openid-configuration",
      },
    },
  },
  paths: {
    "/header": get("viaHeader", [{ headerKey: [] }]),
    "/query": get("viaQuery", [{ queryKey: [] }]),
    "/cookie": get("viaCookie", [{ cookieKey: [] }]),
    "/basic": get("viaBasic", [{ basicAuth: [] }]),
    "/bearer": get("viaDocumentDefault"),
    "/oauth": get("viaOAuth", [{ oauth: [] }]),
    "/oidc": get("viaOidc", [{ oidc: [] }]),
    "/public": get("publicOne", []),
    "/either": get("eitherBasicOrQuery", [{ basicAuth: [] }, { queryKey: [] }]),
    "/both": get("headerAndCookie", [{ headerKey: [], cookieKey: [] }]),
  },
};

let spec: string;
let server: RecordingServer | undefined;
beforeAll(async () => {
  spec = path.join(await mkdtemp(path.join(tmpdir(), "auth-")), "openapi.json");
  await writeFile(spec, JSON.stringify(doc));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runWith(config: ConformanceConfig, status = 200) {
  server = await startRecordingServer(() => ({ status, body: status === 200 ? {} : undefined }));
  const result = await run({
    spec,
    baseUrl: server.url,
    config,
    phases: ["coverage"],
    mode: "positive",
    seed: 1,
    checks: ["not_a_server_error"],
  });
  const at = (p: string): Recorded => {
    const found = server!.requests.find((r) => new URL(r.url, "http://x").pathname === p);
    if (!found) throw new Error(`nothing sent to ${p}`);
    return found;
  };
  return { result, at };
}

describe("credentials per security scheme", () => {
  it("puts each scheme's own credential where the scheme says", async () => {
    const { at } = await runWith({
      credentials: {
        headerKey: "hk-1",
        queryKey: "qk 100%",
        cookieKey: "ck-1",
        basicAuth: { username: "AC123", password: "s3cret" },
        bearerAuth: "bt-1",
        oauth: { token: "oauth-1" },
        oidc: "oidc-1",
      },
    });
    expect(at("/header").headers["x-api-key"]).toBe("hk-1");
    expect(at("/header").headers.authorization).toBeUndefined();
    expect(new URL(at("/query").url, "http://x").searchParams.get("api_key")).toBe("qk 100%");
    expect(at("/query").headers.authorization).toBeUndefined();
    expect(at("/cookie").headers.cookie).toBe("session=ck-1");
    expect(at("/cookie").headers.authorization).toBeUndefined();
    expect(at("/basic").headers.authorization).toBe(
      `Basic ${Buffer.from("AC123:s3cret").toString("base64")}`,
    );
    expect(at("/bearer").headers.authorization).toBe("Bearer bt-1");
    expect(at("/oauth").headers.authorization).toBe("Bearer oauth-1");
    expect(at("/oidc").headers.authorization).toBe("Bearer oidc-1");
    const both = at("/both");
    expect([both.headers["x-api-key"], both.headers.cookie]).toEqual(["hk-1", "session=ck-1"]);
  });

  it("sends nothing to an operation whose security is []", async () => {
    const { at } = await runWith({ credentials: { bearerAuth: "bt-1" }, keys: { all: "k-all" } });
    const r = at("/public");
    expect(r.headers.authorization).toBeUndefined();
    expect(r.headers.cookie).toBeUndefined();
    expect(r.url).toBe("/public");
  });

  it("uses the alternative the config has a credential for", async () => {
    const { at } = await runWith({ credentials: { queryKey: "qk-2" } });
    const r = at("/either");
    expect(new URL(r.url, "http://x").searchParams.get("api_key")).toBe("qk-2");
    expect(r.headers.authorization).toBeUndefined();
  });

  it("keeps the single key as the default for every scheme without its own credential", async () => {
    const { at } = await runWith({ keys: { all: "k-all" }, credentials: { queryKey: "qk-3" } });
    expect(at("/bearer").headers.authorization).toBe("Bearer k-all");
    expect(at("/header").headers["x-api-key"]).toBe("k-all");
    expect(new URL(at("/query").url, "http://x").searchParams.get("api_key")).toBe("qk-3");
    expect(at("/cookie").headers.cookie).toBe("session=k-all");
  });

  // Issue 29 item 6: with one key and an operation allowing Basic or an API key, the key went out
  // as `Basic base64(key)`, which no server reads; the alternative the key fits is used instead,
  // and Basic asks for user:password.
  it("prefers the alternative a single key fits over HTTP Basic, and asks for user:password", async () => {
    const { result, at } = await runWith({ keys: { all: "k-all" } });
    const either = at("/either");
    expect(new URL(either.url, "http://x").searchParams.get("api_key")).toBe("k-all");
    expect(either.headers.authorization).toBeUndefined();
    // Basic as the only way: the key as user name, empty password, and one notice asking
    expect(at("/basic").headers.authorization).toBe(
      `Basic ${Buffer.from("k-all:").toString("base64")}`,
    );
    expect(result.ledger.notices.filter((n) => n.includes("HTTP Basic"))).toEqual([
      'security scheme basicAuth is HTTP Basic and has no user:password (1 operations): the key is sent as the user name with an empty password; set credentials.basicAuth to {"username", "password"} or "user:password"',
    ]);
  });

  it("uses Basic where it comes first and the credential is user:password", async () => {
    const { result, at } = await runWith({ keys: { all: "AC1:tok" } });
    expect(at("/either").headers.authorization).toBe(
      `Basic ${Buffer.from("AC1:tok").toString("base64")}`,
    );
    expect(result.ledger.notices.filter((n) => n.includes("HTTP Basic"))).toEqual([]);
  });

  it("warns when most responses are 401/403, and not otherwise", async () => {
    const refused = await runWith({}, 401);
    expect(
      refused.result.ledger.notices.some((n) =>
        n.startsWith("most responses were 401/403: are credentials configured?"),
      ),
    ).toBe(true);
    await server!.close();
    server = undefined;
    const fine = await runWith({ keys: { all: "k-all" } });
    expect(fine.result.ledger.notices.some((n) => n.includes("401/403"))).toBe(false);
  });
});

describe("withoutCredentials: the user's headers in a request a check gives its own credential", () => {
  const schemes = { securitySchemes: doc.components.securitySchemes } as unknown as Parameters<typeof withoutCredentials>[0];
  it.each([
    ["Authorization (bearer, basic, oauth2)", { Authorization: "Bearer k", "X-Trace": "1" }, { "X-Trace": "1" }],
    ["an API key's header, any case", { "x-api-key": "k", Accept: "application/json" }, { Accept: "application/json" }],
    ["an API key's cookie, other cookies kept", { Cookie: "session=k; theme=dark" }, { Cookie: "theme=dark" }],
    ["a Cookie holding only the API key", { cookie: "session=k" }, {}],
    ["headers that carry no credential", { "X-Request-Id": "r1" }, { "X-Request-Id": "r1" }],
  ])("removes %s", (_what, headers, kept) => {
    expect(withoutCredentials(schemes, headers as Record<string, string>)).toEqual(kept);
  });
});
