// Released contracts: generated/openapi/releases/<version>.json, each the OpenAPI 3.0 document
// as it was released (3.0 since 1.0.0 was recorded so; the gate reads 3.0 and 3.1 alike, and the
// two generated documents compare equal). Recorded once by `npm run release`, never regenerated.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const releasesDir = (root: string) => join(root, "generated/openapi/releases");

const semver = /^(\d+)\.(\d+)\.(\d+)$/;

export function compareVersions(a: string, b: string): number {
  const pa = semver.exec(a)!.slice(1).map(Number);
  const pb = semver.exec(b)!.slice(1).map(Number);
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
}

export function listReleases(root: string): string[] {
  const dir = releasesDir(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => f.replace(/\.json$/, ""))
    .filter((v) => semver.test(v))
    .sort(compareVersions);
}

export function readRelease(root: string, version: string): Record<string, any> {
  return JSON.parse(readFileSync(join(releasesDir(root), `${version}.json`), "utf8"));
}

export function recordRelease(root: string, version: string, doc: Record<string, any>): string {
  if (!semver.test(version))
    throw new Error(`release version must be MAJOR.MINOR.PATCH, got ${version}`);
  const file = join(releasesDir(root), `${version}.json`);
  if (existsSync(file))
    throw new Error(
      `release ${version} is already recorded (${file}); releases are never rewritten`,
    );
  mkdirSync(releasesDir(root), { recursive: true });
  writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
  return file;
}
