// Every operation, scope, event and per-request limit of the seed is in the published contract.
import { describe, expect, it } from "vitest";
import { addedEvents, seedEvents, seedOperations, seedScopes } from "./seed-operations.ts";
import {
  bodyProperty,
  deref,
  loadContract,
  operations,
  parameterSchema,
  type Doc,
} from "./openapi.ts";

const doc = loadContract();
const opById = new Map(operations(doc).map((o) => [o.op.operationId as string, o]));
const byRoute = (method: string, path: string): Doc => doc.paths[path]?.[method];

describe("operations of the seed", () => {
  // Beyond the seed's 43, only operations added under decision V1 (additive), each named here
  // with the decision that brought it, so an operation cannot appear unnoticed.
  const added: Record<string, string> = {
    getMailboxMessageAttachment: "M9",
    getMailboxMessageRaw: "M9",
    listSuppressions: "SU1",
    createSuppression: "SU1",
    deleteSuppression: "SU1",
    sendWebhookTestEvent: "W8",
  };

  it("has the 43 operations of the seed and only the decided additions, all under /v1", () => {
    expect(seedOperations).toHaveLength(43);
    const seedRoutes = new Set(seedOperations.map((o) => `${o.method} ${o.path}`));
    const extra = operations(doc)
      .filter((o) => !seedRoutes.has(`${o.method} ${o.path}`))
      .map((o) => o.op.operationId as string);
    expect(extra.sort()).toEqual(Object.keys(added).sort());
    expect(operations(doc)).toHaveLength(43 + Object.keys(added).length);
    for (const { path } of operations(doc)) expect(path.startsWith("/v1/")).toBe(true);
  });

  it.each(seedOperations.map((o) => [`${o.method} ${o.path}`, o] as const))(
    "%s: present, tagged, summarized, verb+noun id, with its scope",
    (_, seed) => {
      const op = byRoute(seed.method, seed.path);
      expect(op, `${seed.method} ${seed.path}`).toBeDefined();
      expect(op["x-platform-scope"]).toBe(seed.scope);
      expect(op.tags).toHaveLength(1);
      expect(op.summary).toMatch(/^[A-Z]/);
      expect(op.description?.length ?? 0).toBeGreaterThan(10);
      expect(op.operationId).toMatch(/^[a-z]+[A-Z][A-Za-z]*$/);
    },
  );

  it("documents 400, 401, 403 and 429 everywhere, 404 where an id is addressed, 422 on sends", () => {
    for (const { path, op } of operations(doc)) {
      for (const status of ["200", "400", "401", "403", "429"])
        expect(op.responses[status], `${op.operationId} ${status}`).toBeDefined();
      if (path.includes("{")) expect(op.responses["404"], `${op.operationId} 404`).toBeDefined();
      const isSend = ["sendMail", "sendMailBatch"].includes(op.operationId);
      expect(Boolean(op.responses["422"]), `${op.operationId} 422`).toBe(isSend);
      for (const header of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"])
        expect(op.responses["200"].headers[header]?.required, `${op.operationId} ${header}`).toBe(
          true,
        );
      expect(op.responses["429"].headers["Retry-After"].required).toBe(true);
      for (const [status, response] of Object.entries<Doc>(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = deref(doc, response.content["application/json"].schema);
        expect(schema.required, `${op.operationId} ${status} error body`).toEqual(
          expect.arrayContaining(["error", "code"]),
        );
      }
    }
  });

  it("states the decided error statuses: 409 on cancel, download, idempotent sends; 413 on sends", () => {
    for (const id of ["cancelMessage", "downloadCertificate", "sendMail", "sendMailBatch"])
      expect(opById.get(id)!.op.responses["409"]).toBeDefined();
    for (const id of ["sendMail", "sendMailBatch"])
      expect(opById.get(id)!.op.responses["413"]).toBeDefined();
  });
});

describe("auth", () => {
  it("uses bearer keys and describes the key format", () => {
    const schemes = Object.values<Doc>(doc.components.securitySchemes);
    expect(schemes).toHaveLength(1);
    expect(schemes[0]).toMatchObject({ type: "http", scheme: "Bearer" });
    expect(schemes[0].description).toContain("platform_sk_");
  });

  it("lists all 33 scopes with descriptions, marking those without routes", () => {
    const catalogue: Doc[] = doc["x-platform-scopes"];
    expect(catalogue.map((s) => s.name).sort()).toEqual([...seedScopes].sort());
    // Routed: a scope some operation requires, the seed's or one added under V1 (mail:suppressions, SU1).
    const routed = new Set(operations(doc).map((o) => o.op["x-platform-scope"] as string));
    for (const o of seedOperations) expect(routed.has(o.scope)).toBe(true);
    for (const scope of catalogue) {
      expect(scope.description.length).toBeGreaterThan(10);
      expect(scope.routes).toBe(routed.has(scope.name));
    }
  });
});

describe("per-request limits of sections 2 and 8", () => {
  const query = (id: string, name: string) => parameterSchema(doc, opById.get(id)!.op, name);
  const body = (id: string, name: string) => bodyProperty(doc, opById.get(id)!.op, name);

  it.each([
    ["listSentMessages", "limit", 1, 200, 50],
    ["listMailboxMessages", "limit", 1, 500, 50],
    ["getMailStats", "days", 1, 365, 30],
  ] as const)("%s %s is %i..%i, default %i", (id, name, min, max, dflt) => {
    expect(query(id, name)).toMatchObject({ minimum: min, maximum: max, default: dflt });
  });

  it("batch send takes 1 to 200 messages", () => {
    expect(body("sendMailBatch", "messages")).toMatchObject({ minItems: 1, maxItems: 200 });
  });

  it.each(["createMailbox", "createGroup"])(
    "%s name is 2 to 40 of [a-z0-9._-], a valid local part",
    (id) => {
      const name = body(id, "name");
      expect(name).toMatchObject({ minLength: 2, maxLength: 40 });
      const pattern = new RegExp(name.pattern);
      for (const ok of ["ab", "alice.smith", "a_b-c", "x".repeat(40), "9z"])
        expect(pattern.test(ok), ok).toBe(true);
      for (const bad of ["Alice", "a b", "a@b", ".ab", "ab.", "a..b", "ä1"])
        expect(pattern.test(bad), bad).toBe(false);
    },
  );

  it("mailbox password has at least 8 characters", () => {
    expect(body("createMailbox", "password").minLength).toBe(8);
  });

  it("send stream is transactional by default, attachments are filename/content/contentType", () => {
    const send = deref(doc, doc.components.schemas.SendRequest);
    expect(send.properties.stream.default).toBe("transactional");
    expect(deref(doc, send.properties.stream).enum).toEqual(["transactional", "marketing"]);
    expect(Object.keys(doc.components.schemas.Attachment.properties)).toEqual([
      "filename",
      "content",
      "contentType",
    ]);
    expect(send.anyOf).toEqual([{ required: ["subject"] }, { required: ["template"] }]);
  });

  it("documents the limits a schema cannot hold", () => {
    expect(JSON.stringify(doc.components.schemas.SendRequest)).toContain("15 MB");
    expect(
      JSON.stringify(doc.components.schemas.MessageOptions ?? doc.components.schemas.SendRequest),
    ).toContain("90 days");
    expect(doc.components.schemas.DlpFinding.properties.mass.description).toContain("10 or more");
    expect(doc.components.schemas.LoginLink.properties.expiresIn).toMatchObject({
      type: "number",
      enum: [60],
    });
  });

  it.each([
    ["MailboxType", ["personal", "shared", "group"]],
    ["MailStream", ["transactional", "marketing"]],
    [
      "DlpType",
      [
        "card",
        "track",
        "iban",
        "swift",
        "fin",
        "passport",
        "voen",
        "secret",
        "confidential",
        "encrypted",
      ],
    ],
    [
      "MessageStatus",
      [
        "sent",
        "delivered",
        "bounced",
        "soft_bounced",
        "complained",
        "delayed",
        "scheduled",
        "suppressed",
        "failed",
        "canceled",
      ],
    ],
    ["DeliveryStatus", ["pending", "delivered", "failed"]],
    ["CertificateStatus", ["pending", "active", "failed"]],
    ["DnsRecordType", ["A", "AAAA", "TXT", "MX", "CNAME", "NS", "SRV", "CAA"]],
  ])("enum %s", (name, values) => {
    expect(doc.components.schemas[name].enum).toEqual(values);
  });
});

describe("events", () => {
  it("has the seed's 7 events and those added under V1 as OpenAPI webhooks with both delivery headers and a payload schema", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...seedEvents, ...addedEvents].sort());
    for (const [event, item] of Object.entries<Doc>(doc.webhooks)) {
      const headers = Object.fromEntries(item.post.parameters.map((p: Doc) => [p.name, p]));
      expect(headers["X-Platform-Event"].schema.enum).toEqual([event]);
      expect(headers["X-Platform-Signature"].schema.pattern).toBe("^sha256=[0-9a-f]{64}$");
      const payload = deref(doc, item.post.requestBody.content["application/json"].schema);
      expect(payload.required).toEqual(["id", "type", "createdAt", "data"]);
      expect(payload.properties.type.enum).toEqual([event]);
    }
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/x-webhooks"))).toBe(false);
  });
});

describe("versioning", () => {
  it("is version 1.0.0 of OpenAPI 3.1, with a 3.0 variant", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    const v30 = loadContract("openapi-3.0.json");
    expect(v30.openapi).toBe("3.0.0");
    expect(Object.keys(v30.paths)).toEqual(Object.keys(doc.paths));
    expect(Object.keys(v30["x-webhooks"])).toEqual(Object.keys(doc.webhooks));
  });
});
