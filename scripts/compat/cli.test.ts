// The CLI as CI runs it (the real process): formats, --fail-on, the changelog grouped by
// operation, the allow-list and git revisions as inputs.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const cliPath = resolve(dirname(fileURLToPath(import.meta.url)), "cli.ts");
const cli = (args: string[], cwd?: string) =>
  spawnSync(process.execPath, [cliPath, ...args], { encoding: "utf8", cwd });

// The base: one operation with a bounded name and an optional note; the revision lowers the
// bound (ERR), changes the note's pattern (WARN) and adds an operation (INFO).
/** A document whose POST /things takes an object of `properties` (YAML at their indent), then `morePaths`. */
const thingsApi = (properties: string, morePaths = "") => `openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /things:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
${properties}
      responses:
        "200": { description: ok }
${morePaths}`;
const baseYaml = thingsApi(`                name: { type: string, maxLength: 40 }
                note: { type: string, pattern: "^[a-z]+$" }`);
const revisionYaml = thingsApi(
  `                name:
                  type: string
                  maxLength: 20
                note: { type: string, pattern: "^[a-z0-9]+$" }`,
  `  /others:
    get:
      responses:
        "200": { description: ok }
`,
);
const warnOnlyYaml = baseYaml.replace('"^[a-z]+$"', '"^[a-z0-9]+$"');

/** Writes `text` to dir/name; answers its path. */
const write = (dir: string, name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

function files(): { dir: string; base: string; revision: string; warnOnly: string } {
  const dir = mkdtempSync(join(tmpdir(), "compat-cli-"));
  const f = (name: string, text: string) => write(dir, name, text);
  return {
    dir,
    base: f("base.yaml", baseYaml),
    revision: f("revision.yaml", revisionYaml),
    warnOnly: f("warn.yaml", warnOnlyYaml),
  };
}

describe("npm run compat: formats", () => {
  const { base, revision } = files();
  const run = (format: string) => {
    const r = cli([base, revision, "--format", format]);
    expect(r.status, r.stderr).toBe(1);
    return r.stdout;
  };

  it("json and yaml carry every finding with its rule id and level", () => {
    for (const data of [JSON.parse(run("json")), parse(run("yaml"))]) {
      expect(data.summary).toMatchObject({ breaking: 1, warnings: 1 });
      expect(data.findings.map((f: any) => `${f.level} ${f.id} ${f.operation}`)).toEqual([
        "ERR request-property-max-length-decreased POST /things",
        "WARN request-property-pattern-changed POST /things",
        "INFO endpoint-added GET /others",
      ]);
      for (const f of data.findings) expect(f.pointer).toMatch(/^\/paths\//);
    }
  });
  it("text prints level, rule id, operation and pointer", () => {
    expect(run("text")).toMatch(
      /^ERR +\[request-property-max-length-decreased\] POST \/things: max-length: 40 -> 20\n +at \/paths\/~1things\/post\/requestBody\/content\/application~1json\/schema\/properties\/name$/m,
    );
  });
  it("markdown is a table with the rule id in each row", () => {
    const md = run("markdown");
    expect(md).toContain("| Level | Rule | Operation | Change | Where |");
    expect(md).toMatch(/^\| ERR \| `request-property-max-length-decreased` \| `POST \/things` \|/m);
  });
  it("html is a page with one escaped row per finding", () => {
    const html = run("html");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html.match(/<tr class="/g)).toHaveLength(3);
    expect(html).toContain("<code>request-property-pattern-changed</code>");
    expect(html).not.toMatch(/<td>[^<]*\^\[a-z\]\+\$[^<]*<\/td>.*<script/);
  });
  it("junit has one test case per finding, the failing level as failures", () => {
    const xml = run("junit");
    expect(xml).toMatch(/<testsuites name="compat" tests="3" failures="1">/);
    expect(xml).toMatch(/<failure type="ERR" message="max-length: 40 -&gt; 20">/);
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    const warn = cli([base, revision, "--format", "junit", "--fail-on", "WARN"]).stdout;
    expect(warn).toMatch(/failures="2"/);
  });
  it("githubactions annotates the revision's changed line with the rule id", () => {
    const out = run("githubactions");
    const line = revisionYaml.split("\n").indexOf("                  maxLength: 20") + 1;
    const nameLine = revisionYaml.split("\n").indexOf("                name:") + 1;
    // The finding's pointer names the property: its key's line in the revision.
    expect(out).toContain(
      `::error file=${revision.replace(/:/g, "%3A")},line=${nameLine},title=ERR request-property-max-length-decreased::POST /things: max-length: 40 -> 20`,
    );
    expect(line).toBeGreaterThan(nameLine);
    expect(out).toMatch(
      /^::warning file=[^,]+,line=16,title=WARN request-property-pattern-changed::/m,
    );
    expect(out).toMatch(
      /^::notice file=[^,]+,line=20,title=INFO endpoint-added::GET \/others: new$/m,
    );
  });
  it("an unknown format or --fail-on level is a usage error (exit 2)", () => {
    const r = cli([base, revision, "--format", "pdf"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--format pdf");
    expect(cli([base, revision, "--fail-on", "INFO"]).status).toBe(2);
  });
});

describe("npm run compat: --fail-on", () => {
  const { base, warnOnly } = files();
  it("WARN fails only under --fail-on WARN", () => {
    expect(cli([base, warnOnly]).status).toBe(0);
    const r = cli([base, warnOnly, "--fail-on", "WARN"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^WARN +\[request-property-pattern-changed\]/m);
    expect(cli([base, base, "--fail-on", "WARN"]).status).toBe(0);
  });
});

describe("npm run compat -- changelog", () => {
  const { base, revision } = files();
  it("lists every change grouped by operation, and does not fail the build by itself", () => {
    const r = cli(["changelog", base, revision]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /\nGET \/others\n  INFO +\[endpoint-added\] new\n\nPOST \/things\n  ERR +\[request-property-max-length-decreased\] max-length: 40 -> 20\n  WARN +\[request-property-pattern-changed\]/,
    );
    expect(cli(["changelog", base, revision, "--fail-on", "ERR"]).status).toBe(1);
  });
  it("in json, yaml and markdown, by operation", () => {
    const data = JSON.parse(cli(["changelog", base, revision, "--format", "json"]).stdout);
    expect(data.operations.map((o: any) => [o.operation, o.changes.map((c: any) => c.id)])).toEqual(
      [
        ["GET /others", ["endpoint-added"]],
        [
          "POST /things",
          ["request-property-max-length-decreased", "request-property-pattern-changed"],
        ],
      ],
    );
    expect(
      parse(cli(["changelog", base, revision, "--format", "yaml"]).stdout).operations,
    ).toHaveLength(2);
    const md = cli(["changelog", base, revision, "--format", "markdown"]).stdout;
    expect(md).toMatch(
      /## `POST \/things`\n\n- ERR `request-property-max-length-decreased`: max-length: 40 -> 20/,
    );
  });
});

describe("npm run compat: allow-list", () => {
  const { dir, base, revision } = files();
  const list = (name: string, text: string) => write(dir, name, text);
  it("an allowed break is shown with its reason and does not fail; others still do", () => {
    const allow = list(
      "allow.yaml",
      "- rule: request-property-max-length-decreased\n  operation: POST /things\n  reason: agreed with both clients (ticket 12)\n",
    );
    const r = cli([base, revision, "--allow-list", allow]);
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /^ERR\* +\[request-property-max-length-decreased\] POST \/things: .*\(allowed: agreed with both clients \(ticket 12\)\)$/m,
    );
    expect(r.stdout).toContain("1 allowed");
    const json = JSON.parse(
      cli([base, revision, "--allow-list", allow, "--format", "json"]).stdout,
    );
    expect(json.findings[0]).toMatchObject({
      level: "ERR",
      allowed: "agreed with both clients (ticket 12)",
    });
    // The allowance names one operation: the same rule elsewhere still fails.
    const other = list(
      "other.json",
      JSON.stringify({
        allow: [
          { rule: "request-property-max-length-decreased", operation: "PUT /things", reason: "x" },
        ],
      }),
    );
    const o = cli([base, revision, "--allow-list", other]);
    expect(o.status).toBe(1);
    expect(o.stderr).toContain(
      "allow-list entry request-property-max-length-decreased PUT /things matched no finding",
    );
  });
  it("an entry without a reason, or naming no rule of the gate, is refused (exit 2)", () => {
    const noReason = list(
      "noreason.yaml",
      "- rule: request-property-max-length-decreased\n  operation: POST /things\n",
    );
    const r = cli([base, revision, "--allow-list", noReason]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"reason" is required');
    const badRule = list("badrule.yaml", "- rule: no-such-rule\n  operation: '*'\n  reason: r\n");
    expect(cli([base, revision, "--allow-list", badRule]).stderr).toContain(
      "no-such-rule is not a rule",
    );
  });
});

describe("npm run compat: git revisions as inputs", () => {
  it("reads <rev>:<path> with git show, and the files it $refs from the same revision", () => {
    const dir = mkdtempSync(join(tmpdir(), "compat-git-"));
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd: dir,
        encoding: "utf8",
      });
    git("init", "-q");
    const api = baseYaml.replace(
      "name: { type: string, maxLength: 40 }",
      "name: { $ref: 'parts/name.yaml' }",
    );
    execFileSync("mkdir", ["-p", join(dir, "api/parts")]);
    writeFileSync(join(dir, "api/openapi.yaml"), api);
    writeFileSync(join(dir, "api/parts/name.yaml"), "type: string\nmaxLength: 40\n");
    git("add", ".");
    git("commit", "-qm", "release");
    git("tag", "v1");
    // The working copy lowers the bound in the referenced file only.
    writeFileSync(join(dir, "api/parts/name.yaml"), "type: string\nmaxLength: 20\n");
    const sub = join(dir, "api");
    const r = cli(["v1:api/openapi.yaml", "openapi.yaml"], sub);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^ERR +\[request-property-max-length-decreased\] POST \/things/m);
    // Both sides from git: the same revision twice is no change; ./ is relative to the current folder.
    expect(cli(["v1:api/openapi.yaml", "HEAD:./openapi.yaml"], sub).stdout).toMatch(
      /: 0 change\(s\)/,
    );
    git("commit", "-qam", "lower");
    expect(
      cli(["v1:api/openapi.yaml", "HEAD:api/openapi.yaml", "--format", "githubactions"], sub)
        .stdout,
    ).toMatch(/^::error file=api\/parts\/name.yaml|^::error file=api\/openapi.yaml/m);
    const missing = cli(["v1:api/nothing.yaml", "openapi.yaml"], sub);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("v1:api/nothing.yaml");
  });
});
