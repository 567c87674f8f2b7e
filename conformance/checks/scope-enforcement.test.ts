// scope_enforcement on its own, against the correct fixture and servers that get one half wrong:
// the exact finding (message, expected, got) each half reports, that a right answer records a
// pass, and that the check stays silent (no pass, no failure) where it cannot judge: an operation
// without a scope, or a config that can mint no scoped keys. The catalogue proves it in a full run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify } from "yaml";
import type { Behaviour } from "../fixtures/contract-server.ts";
import { CONTRACT_PATH, MINI_PATH, startMini, startPlatform, type Fixture } from "../fixtures/platform.ts";
import type { ConformanceConfig } from "../engine/config.ts";
import { run } from "../engine/runner.ts";

const started: Fixture[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((f) => f.server.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function scopeRun(patch?: (b: Behaviour) => Behaviour, config?: (c: ConformanceConfig, f: Fixture) => ConformanceConfig, operations = ["listGroups"]) {
  const f = await startPlatform(patch);
  started.push(f);
  const r = await run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: config ? config(f.config, f) : f.config, checks: ["scope_enforcement"], includeOperationId: operations, maxExamples: 2, seed: 1 });
  return {
    failures: r.ledger.failures.map(({ check, operation, title, message, expected, got, severity }) => ({ check, operation, title, message, expected, got, severity })),
    outcome: r.ledger.outcomes.get(operations[0])?.get("scope_enforcement"),
  };
}

/** A server answering `status` instead of the real outcome for keys holding exactly the given scopes. */
const answerFor = (which: (scopes: Set<string>, scope: string) => boolean, status: number) => (b: Behaviour): Behaviour => ({
  ...b,
  authorize(input) {
    if (input.key && input.op.scope && which(input.key.scopes, input.op.scope)) return { status, body: { error: "refused", code: status === 401 ? "unauthorized" : "forbidden" } };
    return b.authorize(input);
  },
});
const onlyTheScope = (scopes: Set<string>, scope: string) => scopes.size === 1 && scopes.has(scope);

describe("scope_enforcement", () => {
  it("passes a server that refuses the key without the scope with 403 and serves the key with only it", async () => {
    const r = await scopeRun();
    expect(r.failures).toEqual([]);
    expect(r.outcome).toEqual({ passed: 1, failed: 0 });
  });

  it("a key without the scope that is served is a failure naming the scope and the status", async () => {
    const r = await scopeRun((b) => ({ ...b, authorize: () => undefined }));
    expect(r.failures).toEqual([
      { check: "scope_enforcement", operation: "listGroups", title: "Scope not enforced", message: "a key with every scope but mail:mailboxes answered 200", expected: "403", got: "200", severity: "critical" },
    ]);
  });

  it("a key without the scope refused with 401 instead of 403 is a failure too", async () => {
    const r = await scopeRun(answerFor((scopes, scope) => !scopes.has(scope), 401));
    expect(r.failures).toEqual([
      { check: "scope_enforcement", operation: "listGroups", title: "Scope not enforced", message: "a key with every scope but mail:mailboxes answered 401", expected: "403", got: "401", severity: "critical" },
    ]);
  });

  it("a key with only the scope refused with 403 or with 401 is a failure", async () => {
    for (const status of [403, 401]) {
      const r = await scopeRun(answerFor(onlyTheScope, status));
      expect(r.failures).toEqual([
        { check: "scope_enforcement", operation: "listGroups", title: "Required scope refused", message: `a key with only mail:mailboxes answered ${status}`, expected: "not 401/403", got: String(status), severity: "critical" },
      ]);
    }
  });

  it("a key with only the scope that gets another 4xx is not a scope failure", async () => {
    const r = await scopeRun(answerFor(onlyTheScope, 404));
    expect(r.failures).toEqual([]);
    expect(r.outcome).toEqual({ passed: 1, failed: 0 });
  });

  it("both halves wrong at once: both findings", async () => {
    const r = await scopeRun((b) => ({ ...b, authorize: (input) => (input.key && onlyTheScope(input.key.scopes, input.op.scope!) ? b.authorize({ ...input, op: { ...input.op, scope: "none" } }) : undefined) }));
    expect(r.failures.map((f) => f.message)).toEqual(["a key with every scope but mail:mailboxes answered 200"]);
    expect(r.outcome).toEqual({ passed: 0, failed: 2 });
  });

  it("with only one of the two keys available, judges that half alone", async () => {
    // withScopes as a map: only the keys it lists exist.
    const onlyKey = (c: ConformanceConfig, f: Fixture) => ({ ...c, keys: { ...c.keys, withScopes: { "mail:mailboxes": f.world.addKey("p1", ["mail:mailboxes"]) } } });
    const refusesOnly = await scopeRun(answerFor(onlyTheScope, 403), onlyKey);
    expect(refusesOnly.failures.map((f) => f.message)).toEqual(["a key with only mail:mailboxes answered 403"]);
    const ignoresScope = await scopeRun((b) => ({ ...b, authorize: () => undefined }), onlyKey);
    expect(ignoresScope.failures).toEqual([]);
    expect(ignoresScope.outcome).toEqual({ passed: 1, failed: 0 });

    const withoutKey = (c: ConformanceConfig, f: Fixture) => {
      const others = f.contract.scopes.filter((s) => s !== "mail:mailboxes").sort();
      return { ...c, keys: { ...c.keys, withScopes: { [others.join(",")]: f.world.addKey("p1", others) } } };
    };
    const ignores = await scopeRun((b) => ({ ...b, authorize: () => undefined }), withoutKey);
    expect(ignores.failures.map((f) => f.message)).toEqual(["a key with every scope but mail:mailboxes answered 200"]);
    const refuses = await scopeRun(answerFor(onlyTheScope, 403), withoutKey);
    expect(refuses.failures).toEqual([]);
    // Even a server refusing every key: without a key holding only the scope, that half is not judged.
    const refusesAll = await scopeRun(answerFor(() => true, 403), withoutKey);
    expect(refusesAll.failures).toEqual([]);
    expect(refusesAll.outcome).toEqual({ passed: 1, failed: 0 });
  });

  it("without any scoped key the check does not run (neither pass nor failure)", async () => {
    const r = await scopeRun((b) => ({ ...b, authorize: () => undefined }), (c) => ({ ...c, keys: { ...c.keys, withScopes: undefined } }));
    expect(r.failures).toEqual([]);
    expect(r.outcome).toBeUndefined();
  });

  it("its requests belong to the coverage phase: a response check failing on them says so", async () => {
    const f = await startPlatform(answerFor((scopes, scope) => !scopes.has(scope), 418));
    started.push(f);
    const r = await run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: f.config, checks: ["scope_enforcement", "status_code_conformance"], includeOperationId: ["listGroups"], maxExamples: 2, seed: 1, phases: ["coverage"] });
    expect(r.ledger.failures.map(({ check, phase, got }) => ({ check, phase, got }))).toEqual([
      { check: "status_code_conformance", phase: "coverage", got: "418" },
      { check: "scope_enforcement", phase: "coverage", got: "418" },
    ]);
  });

  it("so are the requests with only the scope", async () => {
    const f = await startPlatform(answerFor(onlyTheScope, 418));
    started.push(f);
    const r = await run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: f.config, checks: ["scope_enforcement", "status_code_conformance"], includeOperationId: ["listGroups"], maxExamples: 2, seed: 1, phases: ["coverage"] });
    expect(r.ledger.failures.map(({ check, phase, got }) => ({ check, phase, got }))).toEqual([{ check: "status_code_conformance", phase: "coverage", got: "418" }]);
  });

  it("its probes bypass the after hooks, which see only the run's own traffic", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "scope-hooks-"));
    dirs.push(dir);
    const hooks = path.join(dir, "hooks.mjs");
    writeFileSync(hooks, "export default { after: { '*': (ex) => { (globalThis.__scopeHooks ??= []).push(ex.keyRole); } } };");
    const seen: string[] = ((globalThis as { __scopeHooks?: string[] }).__scopeHooks = []);
    const r = await scopeRun(undefined, (c) => ({ ...c, hooks }));
    expect(r.outcome).toEqual({ passed: 1, failed: 0 });
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["default"]));
  });

  it("an operation without a scope is not judged", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "scope-"));
    dirs.push(dir);
    const spec = parseYaml(readFileSync(MINI_PATH, "utf8"));
    delete spec.paths["/v1/notes"].get["x-platform-scope"];
    const file = path.join(dir, "mini.yaml");
    writeFileSync(file, stringify(spec));
    const f = await startMini(undefined, file);
    started.push(f);
    const r = await run({ spec: file, baseUrl: f.server.url, config: f.config, checks: ["scope_enforcement"], includeOperationId: ["listNotes", "createNote"], maxExamples: 2, seed: 1 });
    expect(r.ledger.failures).toEqual([]);
    expect(r.ledger.outcomes.get("listNotes")?.get("scope_enforcement")).toBeUndefined();
    expect(r.ledger.outcomes.get("createNote")?.get("scope_enforcement")).toEqual({ passed: 1, failed: 0 });
  });
});
