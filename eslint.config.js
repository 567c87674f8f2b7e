// Code lint: typescript-eslint's recommended rules (without type information, so it stays fast).
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/**", "generated/**", "data/**", "**/*.d.ts", "build/**", ".stryker-tmp/**", "reports/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // The contract's documents are untyped JSON walked generically.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
