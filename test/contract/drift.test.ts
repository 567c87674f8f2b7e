// generated/ is output: regenerating from spec/ must reproduce every committed file exactly.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { root } from "./openapi.ts";

function files(dir: string): string[] {
  return (
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      // docs/ is built on demand and ignored; releases are recorded once (npm run release), never
      // regenerated; the README is the folder's only hand-written file.
      .filter(
        (file) =>
          !file.startsWith("docs/") &&
          !file.startsWith("openapi/releases/") &&
          file !== "README.md",
      )
      .sort()
  );
}

describe("generated/ drift", () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "generated-"));
    execFileSync(process.execPath, ["scripts/generate.ts", "--out", out], {
      cwd: root,
      stdio: "pipe",
    });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("regenerates exactly the committed files", () => {
    const committed = join(root, "generated");
    expect(files(out)).toEqual(files(committed));
    for (const file of files(out)) {
      expect(readFileSync(join(out, file), "utf8"), file).toBe(
        readFileSync(join(committed, file), "utf8"),
      );
    }
  });
});
