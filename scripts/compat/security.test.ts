// Security requirements, judged by the credentials existing clients hold (security.ts): each
// change on an operation's own list, on the document's global list reaching operations, and on a
// webhook or callback, where the platform presents the credential and the sides swap.
import { describe, expect, it } from "vitest";
import { compareDocuments } from "./compare.ts";

type Doc = Record<string, any>;
const schemes = (): Doc => ({
  oauth: {
    type: "oauth2",
    flows: {
      clientCredentials: {
        tokenUrl: "https://auth.example.com/token",
        scopes: { read: "r", write: "w", admin: "a" },
      },
      authorizationCode: {
        authorizationUrl: "https://auth.example.com/authorize",
        tokenUrl: "https://auth.example.com/token",
        refreshUrl: "https://auth.example.com/refresh",
        scopes: { read: "r" },
      },
    },
  },
  key: { type: "apiKey", in: "header", name: "X-Api-Key" },
  cookie: { type: "apiKey", in: "cookie", name: "session" },
  basic: { type: "http", scheme: "basic" },
  bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
  oidc: {
    type: "openIdConnect",
    openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration",
  },
});
const op = (security?: Doc[]): Doc => ({
  ...(security ? { security } : {}),
  responses: { "200": { description: "ok" } },
});
/** One operation, one webhook and one callback, all with the same requirements. */
const doc = (opSecurity?: Doc[], global?: Doc[], edit?: (s: Doc) => void): Doc => {
  const s = schemes();
  edit?.(s);
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    ...(global ? { security: global } : {}),
    paths: {
      "/things": {
        get: op(opSecurity),
        post: {
          ...op(opSecurity),
          callbacks: { done: { "{$request.body#/url}": { post: op(opSecurity) } } },
        },
      },
    },
    webhooks: { "thing.done": { post: op(opSecurity) } },
    components: { securitySchemes: s },
  };
};

// A callback's findings are named by the operation that declares it; its pointer tells them apart.
const errs = (a: Doc, b: Doc, where: string) =>
  compareDocuments(a, b)
    .filter(
      (f) =>
        f.level === "ERR" &&
        (where === "callback"
          ? f.pointer.includes("/callbacks/")
          : f.operation === where && !f.pointer.includes("/callbacks/")),
    )
    .map((f) => f.id);

// [what, base, revision, the ERR rule on the operation (undefined: compatible), the ERR rule on
// the webhook and the callback, where the sides swap]
const cases: [string, Doc, Doc, string | undefined, string | undefined][] = [
  [
    "scope added to an OAuth requirement",
    doc([{ oauth: ["read"] }]),
    doc([{ oauth: ["read", "write"] }]),
    "api-security-requirement-scope-added",
    undefined,
  ],
  [
    "scope removed from an OAuth requirement",
    doc([{ oauth: ["read", "write"] }]),
    doc([{ oauth: ["read"] }]),
    undefined,
    "api-security-requirement-scope-added",
  ],
  [
    "scheme added to an AND requirement",
    doc([{ key: [], basic: [] }]),
    doc([{ key: [], basic: [], cookie: [] }]),
    "api-security-requirement-scheme-added",
    undefined,
  ],
  [
    "scheme removed from an AND requirement",
    doc([{ key: [], basic: [] }]),
    doc([{ key: [] }]),
    undefined,
    "api-security-requirement-scheme-added",
  ],
  [
    "an OR alternative removed",
    doc([{ key: [] }, { bearer: [] }]),
    doc([{ key: [] }]),
    "api-security-requirement-removed",
    undefined,
  ],
  [
    "an OR alternative added",
    doc([{ key: [] }]),
    doc([{ key: [] }, { bearer: [] }]),
    undefined,
    "api-security-requirement-removed",
  ],
  [
    "an open operation requires a credential",
    doc(undefined),
    doc([{ key: [] }]),
    "api-security-requirement-added",
    // The platform now presents a key to receivers that asked for nothing: they are unaffected.
    undefined,
  ],
  [
    "anonymous access added as an alternative ({})",
    doc([{ key: [] }]),
    doc([{ key: [] }, {}]),
    undefined,
    "api-security-requirement-removed",
  ],
  [
    "apiKey moved from header to query",
    doc([{ key: [] }]),
    doc([{ key: [] }], undefined, (s) => (s.key.in = "query")),
    "api-security-scheme-changed-for-operation",
    "api-security-scheme-changed-for-operation",
  ],
  [
    "apiKey header renamed",
    doc([{ key: [] }]),
    doc([{ key: [] }], undefined, (s) => (s.key.name = "X-Key")),
    "api-security-scheme-changed-for-operation",
    "api-security-scheme-changed-for-operation",
  ],
  [
    "apiKey header name in another case (headers are case-insensitive)",
    doc([{ key: [] }]),
    doc([{ key: [] }], undefined, (s) => (s.key.name = "x-api-key")),
    undefined,
    undefined,
  ],
  [
    "cookie apiKey became http bearer",
    doc([{ cookie: [] }]),
    doc([{ cookie: [] }], undefined, (s) => (s.cookie = { type: "http", scheme: "bearer" })),
    "api-security-scheme-changed-for-operation",
    "api-security-scheme-changed-for-operation",
  ],
  [
    "http basic became Digest",
    doc([{ basic: [] }]),
    doc([{ basic: [] }], undefined, (s) => (s.basic.scheme = "digest")),
    "api-security-scheme-changed-for-operation",
    "api-security-scheme-changed-for-operation",
  ],
  [
    "http scheme name in another case",
    doc([{ basic: [] }]),
    doc([{ basic: [] }], undefined, (s) => (s.basic.scheme = "Basic")),
    undefined,
    undefined,
  ],
  [
    "OAuth token URL changed",
    doc([{ oauth: ["read"] }]),
    doc(
      [{ oauth: ["read"] }],
      undefined,
      (s) => (s.oauth.flows.clientCredentials.tokenUrl = "https://new.example.com/token"),
    ),
    "api-security-scheme-changed-for-operation",
    "api-security-scheme-changed-for-operation",
  ],
  [
    "OAuth flow removed",
    doc([{ oauth: ["read"] }]),
    doc([{ oauth: ["read"] }], undefined, (s) => delete s.oauth.flows.authorizationCode),
    "api-security-scheme-changed-for-operation",
    undefined,
  ],
  [
    "OpenID Connect URL changed",
    doc([{ oidc: [] }]),
    doc([{ oidc: [] }], undefined, (s) => (s.oidc.openIdConnectUrl = "https://x.example.com/")),
    "api-security-scheme-changed-for-operation",
    "api-security-scheme-changed-for-operation",
  ],
  [
    "a scheme renamed with the same definition",
    doc([{ key: [] }]),
    (() => {
      const d = doc([{ apiKey: [] }]);
      d.components.securitySchemes.apiKey = d.components.securitySchemes.key;
      delete d.components.securitySchemes.key;
      return d;
    })(),
    undefined,
    undefined,
  ],
  [
    "a scheme renamed, its description reworded",
    doc([{ key: [] }]),
    (() => {
      const d = doc([{ apiKey: [] }]);
      d.components.securitySchemes.apiKey = {
        ...d.components.securitySchemes.key,
        description: "The project's key",
      };
      delete d.components.securitySchemes.key;
      return d;
    })(),
    undefined,
    undefined,
  ],
  [
    "a scheme renamed and moved to a query parameter",
    doc([{ key: [] }]),
    (() => {
      const d = doc([{ apiKey: [] }]);
      d.components.securitySchemes.apiKey = { ...d.components.securitySchemes.key, in: "query" };
      delete d.components.securitySchemes.key;
      return d;
    })(),
    "api-security-requirement-removed",
    "api-security-requirement-removed",
  ],
  [
    "bearerFormat changed (a hint, the credential is the same)",
    doc([{ bearer: [] }]),
    doc([{ bearer: [] }], undefined, (s) => (s.bearer.bearerFormat = "opaque")),
    undefined,
    undefined,
  ],
  [
    "global security gains a scope, reaching operations without their own list",
    doc(undefined, [{ oauth: ["read"] }]),
    doc(undefined, [{ oauth: ["read", "admin"] }]),
    "api-security-requirement-scope-added",
    undefined,
  ],
  [
    "global security added to an open API",
    doc(undefined),
    doc(undefined, [{ key: [] }]),
    "api-security-requirement-added",
    undefined,
  ],
  [
    "an operation's own list replaces a global one asking for more",
    doc(undefined, [{ oauth: ["read"] }]),
    doc([{ oauth: ["read", "write"] }], [{ oauth: ["read"] }]),
    "api-security-requirement-scope-added",
    undefined,
  ],
  [
    "global security changed where operations declare their own: nothing reaches them",
    doc([{ key: [] }], [{ oauth: ["read"] }]),
    doc([{ key: [] }], [{ oauth: ["read", "admin"] }]),
    undefined,
    undefined,
  ],
  [
    "an operation opened to anonymous access (security: [])",
    doc(undefined, [{ key: [] }]),
    doc([], [{ key: [] }]),
    undefined,
    // The platform may now call without a credential: receivers checking the key refuse it.
    "api-security-requirement-removed",
  ],
];

describe("security requirements: what existing credentials still reach", () => {
  it.each(cases)("%s", (_what, a, b, onOperation, onWebhook) => {
    for (const operation of ["GET /things", "POST /things"]) {
      const found = errs(a, b, operation);
      if (onOperation) expect(found, operation).toContain(onOperation);
      else expect(found, operation).toEqual([]);
    }
    for (const operation of ["webhook thing.done (POST)", "callback"]) {
      const found = errs(a, b, operation);
      if (onWebhook) expect(found, operation).toContain(onWebhook);
      else expect(found, operation).toEqual([]);
    }
  });

  it("the finding names the credentials that stop working and what is now asked", () => {
    const f = compareDocuments(
      doc([{ oauth: ["read"] }]),
      doc([{ oauth: ["read", "write"] }]),
    ).find((x) => x.id === "api-security-requirement-scope-added" && x.operation === "GET /things");
    expect(f).toMatchObject({
      level: "ERR",
      pointer: "/paths/~1things/get/security",
      message: "clients authenticating with oauth: now needs scope write of oauth",
    });
  });

  it("a document compared with itself has no security finding", () => {
    expect(
      compareDocuments(
        doc([{ oauth: ["read"] }, { key: [], basic: [] }], [{ oidc: [] }]),
        doc([{ oauth: ["read"] }, { key: [], basic: [] }], [{ oidc: [] }]),
      ),
    ).toEqual([]);
  });
});
