// Every operation has a request and a response example, and every example is valid against the
// schema it illustrates (the Prism mock serves these, so an invalid one would mislead).
import { describe, expect, it } from "vitest";
import { deref, loadContract, operations, type Doc } from "./openapi.ts";
import { contractValidator, okJsonSchema, pointer } from "./validator.ts";

const doc = loadContract();
const validate = contractValidator(doc);
const ops = operations(doc).map((o) => [o.op.operationId as string, o] as const);

describe.each(ops)("%s", (_, { method, path, op }) => {
  it("has a response example valid against the 200 schema", () => {
    const content = op.responses["200"].content;
    if (!content["application/json"]) {
      // A download (decision M9): one binary media type, saved as a file; bytes have no example.
      expect(Object.keys(content)).toHaveLength(1);
      expect(Object.keys(content)[0]).toMatch(/^(application\/octet-stream|message\/rfc822)$/);
      expect(op.responses["200"].headers["Content-Disposition"]).toBeDefined();
      return;
    }
    const media = content["application/json"];
    const examples = Object.entries<Doc>(media.examples ?? {});
    expect(examples.length).toBeGreaterThan(0);
    const at = okJsonSchema(path, method);
    for (const [name, example] of examples) expect(validate(at, example.value), name).toEqual([]);
  });

  it("has a request example: a valid body, and a valid value for every required parameter", () => {
    const media = op.requestBody?.content["application/json"];
    if (media) {
      const examples = Object.entries<Doc>(media.examples ?? {});
      expect(examples.length).toBeGreaterThan(0);
      const at = pointer(
        "paths",
        path,
        method,
        "requestBody",
        "content",
        "application/json",
        "schema",
      );
      for (const [name, example] of examples) expect(validate(at, example.value), name).toEqual([]);
    }
    (op.parameters ?? []).forEach((parameter: Doc, index: number) => {
      const examples = Object.values<Doc>(parameter.examples ?? {});
      if (parameter.required) expect(examples.length, parameter.name).toBeGreaterThan(0);
      const at = pointer("paths", path, method, "parameters", String(index), "schema");
      for (const example of examples)
        expect(validate(at, example.value), parameter.name).toEqual([]);
    });
  });
});

describe("links", () => {
  const byId = new Map(operations(doc).map((o) => [o.op.operationId, o]));

  it("chain the producers of the seed to their consumers", () => {
    const chains: Record<string, string[]> = {
      createMailbox: ["deleteMailbox"],
      createGroup: ["listGroupMembers", "addGroupMember", "deleteGroup"],
      addGroupMember: ["removeGroupMember"],
      createDnsRecord: ["deleteDnsRecord"],
      createWebhook: ["listWebhookDeliveries", "deleteWebhook"],
      addBot: ["getBotStatus", "setBotWebhook"],
      issueCertificate: ["getCertificateStatus", "downloadCertificate"],
      sendMail: ["getSentMessage", "cancelMessage"],
    };
    for (const [producer, consumers] of Object.entries(chains)) {
      const links = byId.get(producer)!.op.responses["200"].links;
      const targets = Object.values<Doc>(links).map((l) => l.operationId);
      expect(targets, producer).toEqual(expect.arrayContaining(consumers));
    }
  });

  it("fill every path parameter of their target from the response or the request", () => {
    for (const { op } of operations(doc)) {
      for (const link of Object.values<Doc>(op.responses["200"].links ?? {})) {
        const target = byId.get(link.operationId)!;
        const pathParams = (target.op.parameters ?? [])
          .filter((p: Doc) => p.in === "path")
          .map((p: Doc) => p.name);
        expect(
          Object.keys(link.parameters).sort(),
          `${op.operationId} -> ${link.operationId}`,
        ).toEqual(pathParams.sort());
        for (const expression of Object.values<string>(link.parameters)) {
          expect(expression).toMatch(/^\$(response\.body#\/[\w/]+|request\.path\.\w+)$/);
          const match = /^\$response\.body#\/(\w+)/.exec(expression);
          if (match) {
            const body = deref(doc, op.responses["200"].content["application/json"].schema);
            expect(Object.keys(body.properties), expression).toContain(match[1]);
          }
        }
      }
    }
  });
});

describe("the example validator itself", () => {
  it("rejects a value that breaks the schema", () => {
    const at = pointer("components", "schemas", "CreateMailboxRequest");
    expect(
      validate(at, { name: "A", domain: "example.test", password: "short" }).length,
    ).toBeGreaterThanOrEqual(2);
    expect(
      validate(at, { name: "alice", domain: "example.test", password: "long enough" }),
    ).toEqual([]);
  });
});
