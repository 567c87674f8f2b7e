// Tests that need a system tool fail, naming the command that installs it, instead of skipping.
import { existsSync } from "node:fs";

export function requireTool(name: string, path: string): string {
  if (!existsSync(path))
    throw new Error(
      `${name} is missing at ${path}: run \`sh scripts/install-system-deps.sh\` (as root or with sudo)`,
    );
  return path;
}
