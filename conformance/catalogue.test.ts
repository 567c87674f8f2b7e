// The proof of the suite: nothing fires on the correct fixture over five seeds, and every entry
// of the broken-server catalogue is caught by the check it documents. Small --max-examples keep
// the whole file within a few tens of seconds; nothing here asserts on time.
import { afterAll, describe, expect, test } from "vitest";
import { allChecks } from "./checks/index.ts";
import { run } from "./engine/runner.ts";
import { catalogue, MINI_CONTRACT } from "./fixtures/broken-servers/index.ts";
import { CONTRACT_PATH, MINI_PATH, startMini, startPlatform, type Fixture } from "./fixtures/platform.ts";

const started: Fixture[] = [];
afterAll(async () => {
  await Promise.all(started.map((f) => f.server.close()));
});

const byPair = (a: { check: string; operation: string }, b: { check: string; operation: string }) => `${a.check} ${a.operation}`.localeCompare(`${b.check} ${b.operation}`);
const textOrPattern = (x: string | RegExp) => (typeof x === "string" ? x : expect.stringMatching(x));
const describeFailures = (r: Awaited<ReturnType<typeof run>>) => r.ledger.failures.map((f) => `${f.check} ${f.operation}: ${f.message}`).join("\n");

describe("correct fixture", () => {
  test.each([1, 2, 3, 4, 5])("platform contract, seed %i: no check fires", async (seed) => {
    const f = await startPlatform();
    started.push(f);
    const r = await run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: f.config, checks: ["all"], maxExamples: 4, seed, strictCoverage: true });
    expect(describeFailures(r)).toBe("");
    expect(r.ledger.totals().passed).toBeGreaterThan(400);
  });

  test("mini OpenAPI 3.0 contract: no check fires", async () => {
    const f = await startMini();
    started.push(f);
    const r = await run({ spec: MINI_PATH, baseUrl: f.server.url, config: f.config, checks: ["all"], maxExamples: 20, seed: 3 });
    expect(describeFailures(r)).toBe("");
  });
});

describe("broken servers", () => {
  test("the catalogue covers every check", () => {
    expect(new Set(catalogue.map((b) => b.check))).toEqual(new Set(allChecks.map((c) => c.name)));
    expect(catalogue.length).toBeGreaterThanOrEqual(15);
  });

  test.each(catalogue.map((b) => [b.name, b] as const))("%s is caught", async (_name, broken) => {
    const mini = MINI_CONTRACT.has(broken.name);
    const f = await (mini ? startMini(broken.patch) : startPlatform(broken.patch));
    started.push(f);
    const r = await run({
      spec: mini ? MINI_PATH : CONTRACT_PATH,
      baseUrl: f.server.url,
      config: f.config,
      checks: ["all"],
      includeOperationId: broken.operations,
      maxExamples: 10,
      seed: 1,
      strictCoverage: true,
    });
    // The whole list, not only the check's name: which operation failed and what the check
    // expected and got, so a check that fires for the wrong reason (or a second check that fires
    // too) fails this test.
    const reported = r.ledger.failures.map(({ check, operation, expected, got }) => ({ check, operation, expected, got })).sort(byPair);
    const caught = broken.caught.map((c) => ({ ...c, expected: textOrPattern(c.expected), got: textOrPattern(c.got) })).sort(byPair);
    expect(broken.caught.map((c) => c.check)).toContain(broken.check);
    expect(reported).toEqual(caught);
  });
});
