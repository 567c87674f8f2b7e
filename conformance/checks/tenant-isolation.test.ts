// tenant_isolation on its own, against the correct fixture and servers that get one half wrong:
// another project's key on the first project's created resources (must be 404), and another
// project's key creating under the first project's fixtures (must be 4xx). Exact findings, the
// 404/403 and 399/400 boundaries, which fixtures count as owned, and where the check stays silent.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ConformanceConfig } from "../engine/config.ts";
import { run } from "../engine/runner.ts";
import type { Behaviour } from "../fixtures/contract-server.ts";
import { CONTRACT_PATH, startPlatform, type Fixture } from "../fixtures/platform.ts";
import createsUnderOtherProject from "../fixtures/broken-servers/creates-under-other-project.ts";
import leaksOtherProject from "../fixtures/broken-servers/leaks-other-project.ts";
import refusesEveryCreate from "../fixtures/broken-servers/refuses-every-create.ts";

const started: Fixture[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((f) => f.server.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function isolationRun(operations: string[], patch?: (b: Behaviour) => Behaviour, config?: (c: ConformanceConfig) => ConformanceConfig) {
  const f = await startPlatform(patch);
  started.push(f);
  const r = await run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: config ? config(f.config) : f.config, checks: ["tenant_isolation"], includeOperationId: operations, maxExamples: 2, seed: 1 });
  return {
    failures: r.ledger.failures.map(({ operation, title, message, expected, got, severity }) => ({ operation, title, message, expected, got, severity })).sort((a, b) => a.operation.localeCompare(b.operation)),
    outcome: (op: string) => r.ledger.outcomes.get(op)?.get("tenant_isolation"),
  };
}

/** Another project's key gets `status` on whatever it asks for, before any other step. */
const otherProjectGets = (status: number, only: (method: string) => boolean = () => true) => (b: Behaviour): Behaviour => ({
  ...b,
  checkOwnership(input, world) {
    if (input.key?.project === "p2" && only(input.op.method)) return { status, body: status < 400 ? {} : { error: "nope", code: "not_found" } };
    return b.checkOwnership(input, world);
  },
});
const noOwnershipOnCreate = (b: Behaviour) => createsUnderOtherProject.patch(b);

describe("another project's key on the first project's resources", () => {
  it("passes a server that answers 404 on every reader and deleter", async () => {
    const r = await isolationRun(["createWebhook"]);
    expect(r.failures).toEqual([]);
    expect(r.outcome("createWebhook")).toEqual({ passed: 1, failed: 0 });
  });

  it("a reader that serves the resource is a failure naming the operation and the status", async () => {
    const r = await isolationRun(["createWebhook"], (b) => leaksOtherProject.patch(b));
    expect(r.failures).toEqual([
      { operation: "createWebhook", title: "Another project's data is reachable", message: "listWebhookDeliveries with another project's key answered 200 for a resource of the first project", expected: "404", got: "200", severity: "critical" },
    ]);
  });

  it("403 instead of 404 is a failure too: it tells the resource exists", async () => {
    const r = await isolationRun(["createWebhook"], otherProjectGets(403, (m) => m !== "POST"));
    expect(r.failures).toEqual([
      { operation: "createWebhook", title: "Another project's data is reachable", message: "listWebhookDeliveries with another project's key answered 403 for a resource of the first project", expected: "404", got: "403", severity: "critical" },
    ]);
  });

  it("a deleter that acts on the resource is a failure", async () => {
    const r = await isolationRun(["createWebhook"], otherProjectGets(204, (m) => m === "DELETE"));
    expect(r.failures).toEqual([
      { operation: "createWebhook", title: "Another project's data is reachable", message: "deleteWebhook with another project's key answered 204 for a resource of the first project", expected: "404", got: "204", severity: "critical" },
    ]);
  });

  it("without another project's key the check does not run", async () => {
    const r = await isolationRun(["createWebhook", "createDnsRecord"], (b) => noOwnershipOnCreate(leaksOtherProject.patch(b)), (c) => ({ ...c, keys: { ...c.keys, otherProject: undefined } }));
    expect(r.failures).toEqual([]);
    expect(r.outcome("createWebhook")).toBeUndefined();
    expect(r.outcome("createDnsRecord")).toBeUndefined();
  });

  it("a create the server refuses leaves nothing to probe", async () => {
    const r = await isolationRun(["createMailbox"], (b) => refusesEveryCreate.patch(b), (c) => ({ ...c, ownedValues: [] }));
    expect(r.failures).toEqual([]);
    expect(r.outcome("createMailbox")).toBeUndefined();
  });

  it("its requests reach the after hooks as the other project's", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tenant-hooks-"));
    dirs.push(dir);
    const hooks = path.join(dir, "hooks.mjs");
    writeFileSync(hooks, "export default { after: { '*': (ex) => { (globalThis.__tenantHooks ??= []).push(`${ex.operation.id} ${ex.keyRole} ${ex.response.status}`); } } };");
    const seen: string[] = ((globalThis as { __tenantHooks?: string[] }).__tenantHooks = []);
    await isolationRun(["createWebhook", "createDnsRecord"], undefined, (c) => ({ ...c, hooks }));
    expect(seen.filter((s) => s.includes("other-project")).sort()).toEqual([
      "createDnsRecord other-project 404", "deleteDnsRecord other-project 404", "deleteWebhook other-project 404", "listWebhookDeliveries other-project 404",
    ]);
  });

  it("an operation that neither creates nor uses a fixture is not judged", async () => {
    const r = await isolationRun(["listGroups", "getMailStats", "listMailboxMessages"], (b) => leaksOtherProject.patch(b));
    expect(r.failures).toEqual([]);
    expect(r.outcome("listGroups")).toBeUndefined();
    expect(r.outcome("getMailStats")).toBeUndefined();
    // Its `from` is a query filter, not a path parameter or a body property: not a fixture it uses.
    expect(r.outcome("listMailboxMessages")).toBeUndefined();
  });
});

describe("another project's key creating under the first project's fixtures", () => {
  const creates = ["createDnsRecord", "createMailbox", "sendMail"];
  const finding = (operation: string, got: string) => ({
    operation, title: "Another project's fixture accepted", message: `${operation} with another project's key succeeded (${got}) on the first project's zone/domain/from/mailbox/domains`, expected: "403 or 404", got, severity: "critical",
  });

  it("passes a server that refuses them (404 for a zone in the path, 400 for a domain or sender in the body)", async () => {
    const r = await isolationRun(creates);
    expect(r.failures).toEqual([]);
    for (const op of creates) expect(r.outcome(op)).toEqual({ passed: 1, failed: 0 });
  });

  it("a server that lets them create is caught on each: path zone, body domain, body sender", async () => {
    const r = await isolationRun(creates, noOwnershipOnCreate);
    expect(r.failures).toEqual(creates.map((op) => finding(op, "200")));
  });

  it("399 is success, 400 is a refusal", async () => {
    const post = (m: string) => m === "POST";
    expect((await isolationRun(["sendMail"], otherProjectGets(399, post))).failures).toEqual([finding("sendMail", "399")]);
    const refused = await isolationRun(["sendMail"], otherProjectGets(400, post));
    expect(refused.failures).toEqual([]);
    expect(refused.outcome("sendMail")).toEqual({ passed: 1, failed: 0 });
  });

  it("only the fixtures named in ownedValues count, when the config names them", async () => {
    const r = await isolationRun(creates, noOwnershipOnCreate, (c) => ({ ...c, ownedValues: ["zone"] }));
    expect(r.failures).toEqual([{ ...finding("createDnsRecord", "200"), message: "createDnsRecord with another project's key succeeded (200) on the first project's zone" }]);
    // Both still create resources, so the other half judges them and passes.
    expect(r.outcome("createMailbox")).toEqual({ passed: 1, failed: 0 });
    expect(r.outcome("sendMail")).toEqual({ passed: 1, failed: 0 });
    const none = await isolationRun(creates, noOwnershipOnCreate, (c) => ({ ...c, ownedValues: [] }));
    expect(none.failures).toEqual([]);
  });

  it("a body fixture counts as owned as much as a path one", async () => {
    const r = await isolationRun(["createMailbox", "createDnsRecord"], noOwnershipOnCreate, (c) => ({ ...c, ownedValues: ["domain"] }));
    expect(r.failures).toEqual([{ ...finding("createMailbox", "200"), message: "createMailbox with another project's key succeeded (200) on the first project's domain" }]);
    expect(r.outcome("createDnsRecord")).toEqual({ passed: 1, failed: 0 });
  });
});
