// Golden files: the sample contract regenerated into a temporary folder must match expected/ byte
// for byte. Re-record with `node scripts/server-stubs/generate-sample.ts` and review the diff.
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateSample } from "./generate-sample.ts";

const expectedRoot = fileURLToPath(new URL("./expected/", import.meta.url));

describe("server stub generator golden files", async () => {
  const outRoot = await mkdtemp(path.join(tmpdir(), "stubs-"));
  await generateSample(outRoot);
  const cases = [] as [string, string][];
  for (const dir of ["server", "types"]) {
    for (const name of await readdir(path.join(outRoot, dir))) cases.push([dir, name]);
  }

  it("writes the same set of files", async () => {
    const expected = [] as string[];
    for (const dir of ["server", "types"]) {
      for (const name of await readdir(path.join(expectedRoot, dir))) expected.push(`${dir}/${name}`);
    }
    expect(cases.map(([d, n]) => `${d}/${n}`).sort()).toEqual(expected.sort());
  });

  it.each(cases)("%s/%s matches the golden file", async (dir, name) => {
    const got = await readFile(path.join(outRoot, dir, name), "utf8");
    await expect(got).toMatchFileSnapshot(path.join(expectedRoot, dir, name));
  });
});
