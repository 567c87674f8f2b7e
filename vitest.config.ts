import { defineConfig } from "vitest/config";

// Tests start real servers on loopback; a generous timeout keeps slow CI machines from flaking,
// and no test asserts on time.
export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "generated/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
