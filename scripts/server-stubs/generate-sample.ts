// Re-records the golden files from the sample contract: `node scripts/server-stubs/generate-sample.ts`.
// The golden test regenerates into a temporary folder and compares with what this wrote.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { generateServerStubs, renderOpenapiTypes } from "./index.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
export const sampleFile = `${here}fixtures/sample.openapi.json`;

export async function generateSample(outRoot: string): Promise<void> {
  const doc = JSON.parse(await readFile(sampleFile, "utf8"));
  await rm(outRoot, { recursive: true, force: true });
  await mkdir(`${outRoot}/types`, { recursive: true });
  await writeFile(`${outRoot}/types/openapi.d.ts`, await renderOpenapiTypes(doc));
  await generateServerStubs(doc, `${outRoot}/server`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await generateSample(`${here}expected`);
  console.log("recorded scripts/server-stubs/expected");
}
