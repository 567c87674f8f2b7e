// The README's one `ts` block under a `###` heading, for the tests that run a README program as
// written (sandbox.test.ts, test-event.test.ts).
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");

export function readmeProgram(heading: string): string {
  const readme = readFileSync(path.join(repo, "README.md"), "utf8");
  const start = readme.indexOf(`\n### ${heading}\n`);
  expect(start, `README has no "### ${heading}" section`).toBeGreaterThan(0);
  const blocks = [
    ...readme
      .slice(start)
      .split(/\n##+ /)[1]
      .matchAll(/```ts\n([\s\S]*?)```/g),
  ];
  expect(blocks).toHaveLength(1);
  return blocks[0][1];
}
