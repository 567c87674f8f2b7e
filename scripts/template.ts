// The smallest template engine that does the job: `{{name}}` placeholders filled from a map, a
// missing value being an error. Anything richer (loops) is built in the generator, so templates
// stay plain TypeScript to read. Shared by the client and the server-stub generators.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const templatesRoot = fileURLToPath(new URL("../templates/", import.meta.url));

/** Renders `templates/<relativePath>` with `values`. */
export async function renderTemplate(
  relativePath: string,
  values: Record<string, string> = {},
): Promise<string> {
  const text = await readFile(new URL(relativePath, `file://${templatesRoot}`), "utf8");
  return text.replace(/\{\{(\w+)\}\}/g, (_whole, key: string) => {
    if (!(key in values)) throw new Error(`template ${relativePath}: no value for {{${key}}}`);
    return values[key];
  });
}
