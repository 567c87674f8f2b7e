// `npm run compat`: the current contract against the latest release; breaking changes (V1) exit 1.
// `npm run release -- 1.1.0`: record the current contract as that release and write CHANGELOG.md.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { changelogSection, report } from "./changelog.ts";
import { compareContracts } from "./compare.ts";
import { compareVersions, listReleases, readRelease, recordRelease } from "./releases.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const current = () => JSON.parse(readFileSync(join(root, "generated/openapi/openapi-3.0.json"), "utf8"));

function check(): number {
  const releases = listReleases(root);
  if (releases.length === 0) {
    console.error("compat: no release recorded in generated/openapi/releases; run `npm run release -- 1.0.0` once");
    return 2;
  }
  const latest = releases[releases.length - 1];
  const findings = compareContracts(readRelease(root, latest), current());
  console.log(report(findings, latest));
  return findings.some((f) => f.verdict === "breaking") ? 1 : 0;
}

function release(version: string | undefined): number {
  if (!version) {
    console.error("usage: npm run release -- <MAJOR.MINOR.PATCH>");
    return 2;
  }
  const doc = current();
  if (doc.info?.version !== version) {
    console.error(`release: the contract says version ${doc.info?.version}; set @info version ${version} in spec/main.tsp and run npm run generate first`);
    return 2;
  }
  const releases = listReleases(root);
  const latest = releases[releases.length - 1];
  if (latest && compareVersions(version, latest) <= 0) {
    console.error(`release: ${version} is not after the latest release ${latest}`);
    return 2;
  }
  const findings = latest ? compareContracts(readRelease(root, latest), doc) : [];
  if (findings.some((f) => f.verdict === "breaking")) {
    console.error(report(findings, latest!));
    console.error("release: breaking changes belong in /v2 (decision V1); nothing recorded");
    return 1;
  }
  const file = recordRelease(root, version, doc);
  const changelog = join(root, "CHANGELOG.md");
  const head = "# Changelog\n\nChanges of the Developer Platform API contract, written by `npm run release` from the compatibility diff.\n";
  const previous = existsSync(changelog) ? readFileSync(changelog, "utf8").replace(head, "").trimStart() : "";
  const section = latest ? changelogSection(version, findings, new Date().toISOString().slice(0, 10)) : `## ${version}\n\nFirst release.`;
  writeFileSync(changelog, `${head}\n${section}\n\n${previous}`.trimEnd() + "\n");
  console.log(`release ${version} recorded in ${file}; CHANGELOG.md updated`);
  return 0;
}

const [command, arg] = process.argv.slice(2);
process.exitCode = command === "release" ? release(arg) : check();
