// `npm run mutation [-- --mutate <module>[,<module>]] [other Stryker options]`: Stryker on the
// critical modules of stryker.config.mjs, one module per Stryker run (the config reads the module
// from MUTATION_MODULE), each with its own test files and its own committed incremental file: one
// shared file would keep only the last run's module. Stryker is started with this process's node
// (Node 24 from node_modules), and the test runners it forks inherit it (process.execPath).
// Exit code non-zero when a run failed, not when a score is low: scores are read from the reports
// (reports/mutation/out/) and recorded, with the date, in the areas' READMEs.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const args = process.argv.slice(2);
const requested: string[] = [];
const rest: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--mutate" || a === "-m") requested.push(...(args[++i] ?? "").split(","));
  else if (a.startsWith("--mutate=")) requested.push(...a.slice("--mutate=".length).split(","));
  else rest.push(a);
}

// Imported by URL: the config is plain JavaScript (Stryker's format), which the type check does not read.
const configUrl = new URL("../stryker.config.mjs", import.meta.url).href;
const { criticalModules } = (await import(configUrl)) as {
  criticalModules: Record<string, string[]>;
};
const modules =
  requested.length > 0
    ? requested.map((m) => path.posix.normalize(m))
    : Object.keys(criticalModules);
// The package exports no bin path, so it is named from the repository root.
const strykerBin = fileURLToPath(
  new URL("../node_modules/@stryker-mutator/core/bin/stryker.js", import.meta.url),
);

let failed = 0;
for (const module of modules) {
  const started = Date.now();
  console.log(`\n== ${module}`);
  const run = spawnSync(process.execPath, [strykerBin, "run", ...rest], {
    stdio: "inherit",
    env: { ...process.env, MUTATION_MODULE: module },
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `== ${module}: ${run.status === 0 ? "done" : `failed (exit ${run.status ?? run.signal})`} in ${seconds} s`,
  );
  if (run.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
