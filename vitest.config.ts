import { defineConfig } from "vitest/config";

// Tests start real servers on loopback; a generous timeout keeps slow CI machines from flaking,
// and no test asserts on time.
export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    // .stryker-tmp: the sandboxes of a running `npm run mutation` hold copies of every test.
    exclude: ["node_modules/**", "generated/**", ".stryker-tmp/**"],
    // Every test's temporary folders under one folder of the run, removed at its end.
    globalSetup: ["test/support/temp-root.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
