// Issue 39 item 7: keys.withScopes commands run where the suite was started (in the config's
// folder the platform's console opened, and created, an empty database), fail with one clean
// line, and the keys a run makes are revoked at its end (keys.revoke), like the resources it makes.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CONTRACT_PATH, startPlatform, type Fixture } from "../fixtures/platform.ts";
import { scopedKeyMaker, type ResolvedConfig } from "./config.ts";
import { ContractError } from "./load-contract.ts";
import { run } from "./runner.ts";

const configDir = mkdtempSync(path.join(tmpdir(), "config-dir-"));
const config = (keys: ResolvedConfig["keys"]): ResolvedConfig => ({ dir: configDir, values: {}, operations: {}, keys });

describe("keys.withScopes and keys.revoke commands", () => {
  it("run in the folder the suite was started from, not the config's", async () => {
    const make = scopedKeyMaker(config({ withScopes: "echo created key for {scopes}: $(pwd)" }));
    expect(await make(["a"])).toBe(process.cwd());
  });

  it("a failing command is one ContractError naming the setting and what it said", async () => {
    const make = scopedKeyMaker(config({ withScopes: "echo 'no database here' >&2; exit 3" }));
    const error = await make(["a"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toBe("keys.withScopes command failed (exit 3): no database here");
  });

  it("revokes every key it made, by the id the creating command printed; never prints a key", async () => {
    const log = path.join(configDir, "revoked.log");
    const make = scopedKeyMaker(config({ withScopes: "echo created key key_{scopes} for prj_1; echo sk_secret_{scopes}", revoke: `echo {id} >> ${log}` }));
    expect([await make(["a"]), await make(["b"]), await make(["a"])]).toEqual(["sk_secret_a", "sk_secret_b", "sk_secret_a"]);
    expect(await make.revokeAll()).toEqual([]);
    expect(readFileSync(log, "utf8").trim().split("\n").sort()).toEqual(["key_a", "key_b"]);
  });

  it("without keys.revoke, says the keys were left active; a failing revoke names the key by id only", async () => {
    const left = scopedKeyMaker(config({ withScopes: "echo created key key_x: sk_1" }));
    await left(["x"]);
    expect(await left.revokeAll()).toEqual(["1 keys made by keys.withScopes were left active: name a keys.revoke command in the config to remove them after the run"]);
    const failing = scopedKeyMaker(config({ withScopes: "echo created key key_y: sk_secret_y", revoke: "echo cannot revoke {key} >&2; exit 1" }));
    await failing(["y"]);
    const [problem] = await failing.revokeAll();
    expect(problem).toMatch(/^key key_y made by keys.withScopes could not be revoked: keys.revoke command failed \(exit 1\)/);
    expect(problem).not.toContain("sk_secret_y");
  });
});

describe("a run revokes the keys it made", () => {
  let f: Fixture;
  afterAll(() => f?.server.close());
  it("scope_enforcement's keys are revoked when the run ends", async () => {
    f = await startPlatform();
    const made: string[] = [];
    const revoked: string[] = [];
    const mint = f.config.keys!.withScopes as (scopes: string[]) => string;
    await run({
      spec: CONTRACT_PATH, baseUrl: f.server.url, checks: ["scope_enforcement"], includeOperationId: ["listGroups"], maxExamples: 2, seed: 1,
      config: { ...f.config, keys: { ...f.config.keys, withScopes: (s) => (made.push(mint(s)), made[made.length - 1]), revoke: (k) => void revoked.push(k) } },
    });
    expect(made.length).toBeGreaterThan(0);
    expect(revoked.sort()).toEqual(made.sort());
  });
});
