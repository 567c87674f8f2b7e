// Issue 39 item 10: the TypeScript examples of the READMEs type-check under `tsc --strict` against
// the generated client, as a user pasting them would compile them (`withIdempotencyKey({ from, to,
// ... })` failed with TS2353 while it worked at runtime). Each ```ts block that imports the client
// is compiled with the package names mapped to generated/client; the names an example leaves to
// its reader's program (a raw body, a request, a secret) are declared, nothing else.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const READMES = ["README.md", "generated/client/README.md"];
const ASSUMED: Record<string, string> = {
  rawBody: "string",
  request: "{ headers: Record<string, string> }",
  secret: "string",
};

const examples = READMES.flatMap((file) =>
  [...readFileSync(path.join(root, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m, i) => ({ name: `${file} example ${i + 1}`, code: m[1] }))
    .filter((e) => e.code.includes("@platform-api/client")),
);

function compile(code: string): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), "readme-ts-"));
  // An ES module, as the client's users write them (top-level await).
  const file = path.join(dir, "example.mts");
  const assumed = Object.entries(ASSUMED).filter(
    ([name]) => !new RegExp(`\\b(?:const|let|var|function)\\s+${name}\\b`).test(code),
  );
  writeFileSync(
    file,
    `${assumed.map(([name, type]) => `declare const ${name}: ${type};\n`).join("")}${code}\nexport {};\n`,
  );
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [path.join(root, "node_modules/@types")],
    baseUrl: root,
    paths: {
      "@platform-api/client": ["generated/client/index.ts"],
      "@platform-api/client/webhooks": ["generated/client/src/webhooks.ts"],
    },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
}

describe("README examples type-check", () => {
  it("there are examples to check", () => expect(examples.length).toBeGreaterThan(0));
  it.each(examples.map((e) => [e.name, e.code]))("%s", (_name, code) => {
    expect(compile(code)).toEqual([]);
  });
});
