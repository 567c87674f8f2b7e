// The console's README block is the list a user copies from: it must name every command the
// console has (its usage text, which `--help` prints) and none it does not have. Any other
// Markdown file naming `platform-admin <area> <action>` or `npm run admin -- <area> <action>`
// must name a real one too.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { usage } from "./commands.ts";

const root = path.resolve(import.meta.dirname, "../..");

/** "area action" of every command line in the usage text. */
function consoleCommands(): Set<string> {
  const found = [...usage.matchAll(/^ {2}([a-z]+) ([a-z]+)\b/gm)].map((m) => `${m[1]} ${m[2]}`);
  return new Set(found);
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => !/node_modules|generated|\.stryker-tmp|reports/.test(path.relative(root, f)));
}

const named = (text: string) =>
  [...text.matchAll(/(?:platform-admin|npm run admin --) ([a-z]+) ([a-z]+)\b/g)].map(
    (m) => `${m[1]} ${m[2]}`,
  );

it("server/README.md's console block lists exactly the console's commands", () => {
  const readme = readFileSync(path.join(root, "server/README.md"), "utf8");
  const section = /## Console: platform-admin[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1];
  const inReadme = new Set(section.split("\n").flatMap(named));
  expect([...inReadme].sort()).toEqual([...consoleCommands()].sort());
});

it("every Markdown file names only commands the console has", () => {
  const known = consoleCommands();
  const unknown = markdownFiles(root).flatMap((file) =>
    named(readFileSync(file, "utf8"))
      .filter((c) => !known.has(c))
      .map((c) => `${path.relative(root, file)}: ${c}`),
  );
  expect(unknown).toEqual([]);
});
