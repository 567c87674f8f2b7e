// ignored_auth when the run's key comes from the user's own headers (`-H "Authorization: Bearer
// ..."`, config `headers`) instead of `keys.all`: its "no credentials" and "invalid key" requests
// must carry no credential of the user's. Before, the -H header went out with them, so a correct
// server answered 200 to "no credentials" (a false failure) and a server ignoring authentication
// could not be told from it. Through the correct fixture and the ignores-auth broken server.
import { afterAll, describe, expect, it } from "vitest";
import type { ConformanceConfig } from "../engine/config.ts";
import { run } from "../engine/runner.ts";
import ignoresAuth from "../fixtures/broken-servers/ignores-auth.ts";
import type { Behaviour } from "../fixtures/contract-server.ts";
import { CONTRACT_PATH, startPlatform, type Fixture } from "../fixtures/platform.ts";

const started: Fixture[] = [];
afterAll(async () => {
  await Promise.all(started.map((f) => f.server.close()));
});

/** The fixture's full key moved from `keys.all` to a user header, given the way `where` says. */
async function runWithHeaderKey(patch: ((b: Behaviour) => Behaviour) | undefined, where: "-H" | "config headers") {
  const f = await startPlatform(patch);
  started.push(f);
  const { all, ...keys } = f.config.keys!;
  const header = { Authorization: `Bearer ${all}` };
  const config: ConformanceConfig = { ...f.config, keys, ...(where === "config headers" ? { headers: header } : {}) };
  const r = await run({
    spec: CONTRACT_PATH,
    baseUrl: f.server.url,
    config,
    headers: where === "-H" ? header : undefined,
    checks: ["ignored_auth"],
    includeOperationId: ["listWebhooks"],
    maxExamples: 2,
    seed: 1,
  });
  return {
    failures: r.ledger.failures.map(({ check, operation, expected, got }) => ({ check, operation, expected, got })),
    outcome: r.ledger.outcomes.get("listWebhooks")?.get("ignored_auth"),
  };
}

describe("ignored_auth with the key in the user's own headers", () => {
  it.each(["-H", "config headers"] as const)("passes the correct server when the key is given with %s", async (where) => {
    const r = await runWithHeaderKey(undefined, where);
    expect(r.failures).toEqual([]);
    expect(r.outcome).toEqual({ passed: 1, failed: 0 });
  });

  it.each(["-H", "config headers"] as const)("catches a server that ignores authentication when the key is given with %s", async (where) => {
    const r = await runWithHeaderKey(ignoresAuth.patch as (b: Behaviour) => Behaviour, where);
    expect(r.failures).toEqual([{ check: "ignored_auth", operation: "listWebhooks", expected: "401", got: "200" }]);
  });
});
