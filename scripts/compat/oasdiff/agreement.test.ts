// The gate against oasdiff's own checker test data (test/compat/oasdiff, labels from its Go tests by
// extract.ts): the agreement table is printed, and the test fails below the goals of issue 30.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agreement, dataDir, runPairs, selfComparisons } from "./agreement.ts";

describe("agreement with oasdiff on its checker test data", () => {
  const { commit, results } = runPairs();
  const a = agreement(results, commit);
  console.log(a.table);

  it("reads every labelled pair", () => {
    expect(results.filter((r) => r.error).map((r) => `${r.test}: ${r.error}`)).toEqual([]);
    expect(a.err.total).toBeGreaterThan(100);
  });
  it(">= 97 % of ERR pairs are reported breaking", () => {
    expect(a.err.breaking / a.err.total).toBeGreaterThanOrEqual(0.97);
  });
  it("<= 3 % of INFO or silent pairs are reported breaking", () => {
    expect(a.compatible.breaking / a.compatible.total).toBeLessThanOrEqual(0.03);
  });
  it("WARN pairs are reported as warnings", () => {
    expect(a.warn.warning / a.warn.total).toBeGreaterThanOrEqual(0.97);
    expect(a.warn.breaking).toBe(0);
  });
  it("WARN pairs of a limit newly set on request data are breaking (V1, issue 38)", () => {
    expect(a.v1.total).toBeGreaterThanOrEqual(5);
    expect(a.v1.breaking).toBe(a.v1.total);
  });
  it("every fixture compared with itself shows no change", () => {
    const self = selfComparisons();
    expect(self.length).toBeGreaterThan(600);
    expect(
      self
        .filter((s) => s.error || s.findings.length)
        .map((s) => `${s.file}: ${s.error ?? s.findings.map((f) => f.id)}`),
    ).toEqual([]);
  });
});

describe("npm run compat -- <base> <revision>", () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ["scripts/compat/cli.ts", ...args], { encoding: "utf8" });
  const fixture = (f: string) => join(dataDir, "data/checker", f);

  it("exits 1 on a breaking change and prints it by rule id with its level", () => {
    const r = cli(fixture("contains_added_base.yaml"), fixture("contains_added_revision.yaml"));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^ERR +\[request-body-contains-added\] POST \/products/m);
    expect(r.stdout).toMatch(/^INFO +\[response-body-contains-added\]/m);
  });
  it("exits 0 when only warnings or info are found, and on a document compared with itself", () => {
    const warn = runPairs().results.find((x) => x.label === "WARN" && x.verdict === "WARN")!;
    const r = cli(join(dataDir, "data", warn.base), join(dataDir, "data", warn.revision));
    expect(r.stdout).toMatch(/^WARN /m);
    expect(r.status).toBe(0);
    expect(
      execFileSync(
        process.execPath,
        [
          "scripts/compat/cli.ts",
          fixture("contains_added_base.yaml"),
          fixture("contains_added_base.yaml"),
        ],
        { encoding: "utf8" },
      ),
    ).toMatch(/: 0 change\(s\)/);
  });
  it("exits 2 naming a document that cannot be read", () => {
    const r = cli(fixture("contains_added_base.yaml"), "/nonexistent/revision.yaml");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("/nonexistent/revision.yaml");
    const notOpenApi = cli(join(dataDir, "labels.json"), fixture("contains_added_base.yaml"));
    expect(notOpenApi.status).toBe(2);
    expect(notOpenApi.stderr).toContain("labels.json");
  });
  it("an unclassified change is shown and fails only under --strict", () => {
    const dir = mkdtempSync(join(tmpdir(), "compat-"));
    const doc = (extra: object) => ({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/a": {
          get: {
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { type: "string", ...extra } } },
              },
            },
          },
        },
      },
    });
    writeFileSync(join(dir, "base.json"), JSON.stringify(doc({})));
    writeFileSync(
      join(dir, "revision.yaml"),
      `# YAML on one side, JSON on the other\n${JSON.stringify(doc({ someFutureKeyword: true }))}\n`,
    );
    const plain = cli(join(dir, "base.json"), join(dir, "revision.yaml"));
    expect(plain.stdout).toMatch(
      /^UNCLASSIFIED +\[unclassified\] GET \/a: schema keyword someFutureKeyword changed/m,
    );
    expect(plain.status).toBe(0);
    expect(cli(join(dir, "base.json"), join(dir, "revision.yaml"), "--strict").status).toBe(1);
  });
});
