// The vitest config of `npm run mutation`: the project's config, with `include` narrowed to the
// test files stryker.config.mjs lists for the module being mutated (MUTATION_MODULE, set by
// scripts/mutation.ts), or for every listed module. A module outside the list keeps the project's
// include (Stryker then asks vitest for the related tests).
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

// Imported by URL: the Stryker config is plain JavaScript, which the type check does not read.
const { criticalModules } = (await import(
  new URL("./stryker.config.mjs", import.meta.url).href
)) as { criticalModules: Record<string, string[]> };
const only = process.env.MUTATION_MODULE;
const include = only ? criticalModules[only] : [...new Set(Object.values(criticalModules).flat())];

// Spread, not mergeConfig: that would append to the project's include instead of replacing it.
export default include ? defineConfig({ ...base, test: { ...base.test, include } }) : base;
