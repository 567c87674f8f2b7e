// The scope catalogue comes from the contract (`x-platform-scopes`), so the console and the
// contract cannot disagree about which scopes exist.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const contractFile = fileURLToPath(new URL("../../generated/openapi/openapi.json", import.meta.url));

export function loadContract(): Record<string, unknown> {
  return JSON.parse(readFileSync(contractFile, "utf8"));
}

export function scopeCatalogue(openapi: Record<string, unknown> = loadContract()): string[] {
  return ((openapi["x-platform-scopes"] as { name: string }[] | undefined) ?? []).map((s) => s.name);
}
