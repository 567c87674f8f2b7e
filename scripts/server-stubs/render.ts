// The smallest template engine that does the job: `{{name}}` placeholders filled from a map.
// Anything richer (loops) is built in the generator, so templates stay plain TypeScript to read.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const templatesDir = fileURLToPath(new URL("../../templates/server/", import.meta.url));

export async function renderTemplate(name: string, values: Record<string, string> = {}): Promise<string> {
  const text = await readFile(new URL(name, `file://${templatesDir}`), "utf8");
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
    if (!(key in values)) throw new Error(`template ${name}: no value for {{${key}}}`);
    return values[key];
  });
}
