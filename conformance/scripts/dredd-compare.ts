// Runs Dredd (the contract's OpenAPI 3.0 rendering; Dredd reads no 3.1) against the correct fixture
// and every platform entry of the broken-server catalogue, and prints which it flags. The table in
// README.md is this output.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { catalogue, MINI_CONTRACT } from "../fixtures/broken-servers/index.ts";
import { startPlatform } from "../fixtures/platform.ts";

const root = path.resolve(import.meta.dirname, "../..");
// Dredd refuses a description whose required path parameters lack examples, which the contract's
// do (ids are created at run time). The copy it gets has one: fixtures for zone and domain, a
// fixed id elsewhere. Nothing else changes.
const spec = path.join(mkdtempSync(path.join(os.tmpdir(), "dredd-")), "openapi-3.0.json");
const doc = JSON.parse(readFileSync(path.join(root, "generated/openapi/openapi-3.0.json"), "utf8"));
const fixture: Record<string, string> = { zone: "p1.example.com", domain: "p1.example.com" };
for (const item of Object.values<any>(doc.paths)) {
  for (const holder of [item, ...Object.values<any>(item)]) {
    for (const p of holder?.parameters ?? []) {
      const param = p.$ref ? undefined : p;
      // Dredd reads `example`, not the `examples` map the contract uses.
      if (param && (param.in === "path" || param.required) && param.example === undefined) param.example = fixture[param.name] ?? (Object.values<any>(param.examples ?? {})[0]?.value ?? "res_1");
    }
  }
}
writeFileSync(spec, JSON.stringify(doc));
const dredd = path.join(root, "node_modules/.bin/dredd");

async function runDredd(url: string, key: string): Promise<{ failed: boolean; summary: string }> {
  try {
    const { stdout } = await promisify(execFile)(dredd, [spec, url, "--header", `Authorization: Bearer ${key}`, "--loglevel", "error", "--reporter", "dot"], { cwd: root, timeout: 120_000 });
    return { failed: false, summary: /complete: .*/.exec(stdout)?.[0] ?? stdout.slice(-200) };
  } catch (error: any) {
    const out = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    return { failed: true, summary: /complete: .*/.exec(out)?.[0] ?? out.trim().split("\n").slice(-2).join(" ").slice(0, 200) };
  }
}

const entries = [{ name: "correct", patch: undefined }, ...catalogue.filter((b) => !MINI_CONTRACT.has(b.name))];
for (const entry of entries) {
  const f = await startPlatform(entry.patch);
  const r = await runDredd(f.server.url, String(f.config.keys?.all));
  console.log(`${entry.name.padEnd(28)} ${r.failed ? "FLAGGED" : "passed "} ${r.summary}`);
  await f.server.close();
}
