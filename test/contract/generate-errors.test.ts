// An API designer's mistake must read as TypeSpec reports it (issue 27 item 9): a spec edit the
// compiler rejects prints the compiler's diagnostic with its file, line and code frame, and
// `npm run generate` exits 1 without a stack trace of the generator.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, expect, it } from "vitest";
import { root } from "./openapi.ts";

// Inside node_modules so the copy's `import "@typespec/http"` resolves as spec/'s does.
const scratch = mkdtempSync(join(root, "node_modules/.spec-broken-"));
const out = mkdtempSync(join(tmpdir(), "generated-broken-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

function generateWith(file: string, edit: (text: string) => string) {
  cpSync(join(root, "spec"), scratch, { recursive: true });
  const target = join(scratch, file);
  writeFileSync(target, edit(readFileSync(target, "utf8")));
  return spawnSync(
    process.execPath,
    ["scripts/generate.ts", "--spec", join(scratch, "main.tsp"), "--out", out],
    { cwd: root, encoding: "utf8" },
  );
}

it("prints TypeSpec's diagnostic with its location and code frame, and exits 1", () => {
  const run = generateWith(
    "webhooks/routes.tsp",
    (text) => `${text}\nmodel BrokenByDesigner {\n  field: NoSuchModel;\n}\n`,
  );
  expect(run.status).toBe(1);
  // TypeSpec colours its report where it thinks someone reads it (a terminal, or CI=true).
  const stderr = stripVTControlCharacters(run.stderr);
  const lines = readFileSync(join(scratch, "webhooks/routes.tsp"), "utf8").split("\n");
  const line = lines.findIndex((l) => l.includes("NoSuchModel")) + 1;
  expect(stderr).toMatch(
    new RegExp(
      `webhooks/routes\\.tsp:${line}:\\d+ - error invalid-ref: Unknown identifier NoSuchModel`,
    ),
  );
  expect(stderr).toContain("field: NoSuchModel;"); // the code frame
  expect(stderr).toContain("typespec compile failed");
  expect(stderr).not.toMatch(/^\s+at /m); // no stack trace
  expect(stderr).not.toContain("Buffer");
});

it("--watch regenerates on a save, and keeps watching after a broken save", async () => {
  const folder = mkdtempSync(join(root, "node_modules/.spec-watch-"));
  const target = mkdtempSync(join(tmpdir(), "generated-watch-"));
  cpSync(join(root, "spec"), folder, { recursive: true });
  const child = spawn(
    process.execPath,
    ["scripts/generate.ts", "--watch", "--spec", join(folder, "main.tsp"), "--out", target],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (c) => (output += stripVTControlCharacters(String(c))));
  child.stderr.on("data", (c) => (output += stripVTControlCharacters(String(c))));
  const until = async (pattern: RegExp, count: number) => {
    while ((output.match(new RegExp(pattern, `${pattern.flags}g`)) ?? []).length < count) {
      if (child.exitCode !== null) throw new Error(`generate --watch exited:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    await until(/^total /m, 1);
    const file = join(folder, "webhooks/routes.tsp");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, `${original}\nmodel BrokenByDesigner {\n  field: NoSuchModel;\n}\n`);
    await until(/error invalid-ref: Unknown identifier NoSuchModel/, 1);
    const spec = join(target, "openapi/openapi.json");
    const before = readFileSync(spec, "utf8");
    writeFileSync(file, original.replace(/@doc\("([^"]*)"\)/, '@doc("$1 Edited in watch mode.")'));
    await until(/^total /m, 2);
    expect(readFileSync(spec, "utf8")).not.toBe(before);
    expect(readFileSync(spec, "utf8")).toContain("Edited in watch mode.");
  } finally {
    child.kill();
    rmSync(folder, { recursive: true, force: true });
    rmSync(target, { recursive: true, force: true });
  }
}, 300_000);
