// The CHANGELOG.md section of a release: every change of the contract grouped by operation, each
// under its rule id and level, as `npm run compat -- changelog <base> <revision> --format
// markdown` prints it (formats.ts); breaking changes never reach a release.
import type { Finding } from "./compare.ts";
import { changelogMarkdown } from "./formats.ts";

export function changelogSection(version: string, findings: Finding[], date?: string): string {
  return changelogMarkdown(findings, `## ${version}${date ? ` (${date})` : ""}`, 3);
}
