// `npm run compat -- <base> <revision> [--strict]`: any two OpenAPI documents (JSON or YAML, 3.0
// or 3.1), as `oasdiff breaking` compares them. Exit 1 when a finding is ERR (or UNCLASSIFIED under
// --strict), 0 otherwise (WARN does not fail), 2 when a document cannot be read.
// `npm run compat`: the current contract against the latest release (decision V1).
// `npm run release -- 1.1.0`: record the current contract as that release and write CHANGELOG.md.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { changelogSection, report, summary } from "./changelog.ts";
import { compareDocuments, type Finding } from "./compare.ts";
import { LoadError, loadDocument } from "./load.ts";
import { compareVersions, listReleases, readRelease, recordRelease } from "./releases.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const currentFile = join(root, "generated/openapi/openapi-3.0.json");
const current = () => JSON.parse(readFileSync(currentFile, "utf8"));

const fails = (findings: Finding[], strict: boolean) =>
  findings.some((f) => f.level === "ERR" || (strict && f.level === "UNCLASSIFIED"));

function compareFiles(base: string, revision: string, strict: boolean): number {
  let docs;
  try {
    docs = [loadDocument(base), loadDocument(revision)];
  } catch (e) {
    if (e instanceof LoadError) {
      console.error(`compat: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const findings = compareDocuments(docs[0], docs[1]);
  console.log(report(findings, `compat: ${base} -> ${revision}: ${summary(findings)}`));
  return fails(findings, strict) ? 1 : 0;
}

function check(strict: boolean): number {
  const releases = listReleases(root);
  if (releases.length === 0) {
    console.error(
      "compat: no release recorded in generated/openapi/releases; run `npm run release -- 1.0.0` once",
    );
    return 2;
  }
  const latest = releases[releases.length - 1];
  const findings = compareDocuments(readRelease(root, latest), current());
  console.log(
    report(
      findings,
      `compat: ${findings.length} change(s) against release ${latest}, ${findings.filter((f) => f.level === "ERR").length} breaking (${summary(findings)})`,
    ),
  );
  return fails(findings, strict) ? 1 : 0;
}

function release(version: string | undefined): number {
  if (!version) {
    console.error("usage: npm run release -- <MAJOR.MINOR.PATCH>");
    return 2;
  }
  const doc = current();
  if (doc.info?.version !== version) {
    console.error(
      `release: the contract says version ${doc.info?.version}; set @info version ${version} in spec/main.tsp and run npm run generate first`,
    );
    return 2;
  }
  const releases = listReleases(root);
  const latest = releases[releases.length - 1];
  if (latest && compareVersions(version, latest) <= 0) {
    console.error(`release: ${version} is not after the latest release ${latest}`);
    return 2;
  }
  const findings = latest ? compareDocuments(readRelease(root, latest), doc) : [];
  if (fails(findings, false)) {
    console.error(report(findings, `release: against ${latest}: ${summary(findings)}`));
    console.error("release: breaking changes belong in /v2 (decision V1); nothing recorded");
    return 1;
  }
  const file = recordRelease(root, version, doc);
  const changelog = join(root, "CHANGELOG.md");
  const head =
    "# Changelog\n\nChanges of the Developer Platform API contract, written by `npm run release` from the compatibility diff, each under its rule (scripts/compat/README.md).\n";
  const previous = existsSync(changelog)
    ? readFileSync(changelog, "utf8")
        .replace(/^# Changelog\n\n[^\n]*\n/, "")
        .trimStart()
    : "";
  const section = latest
    ? changelogSection(version, findings, new Date().toISOString().slice(0, 10))
    : `## ${version}\n\nFirst release.`;
  writeFileSync(changelog, `${head}\n${section}\n\n${previous}`.trimEnd() + "\n");
  console.log(`release ${version} recorded in ${file}; CHANGELOG.md updated`);
  return 0;
}

const args = process.argv.slice(2);
const strict = args.includes("--strict");
const rest = args.filter((a) => a !== "--strict");
if (rest[0] === "release") process.exitCode = release(rest[1]);
else if (rest.length === 2) process.exitCode = compareFiles(rest[0], rest[1], strict);
else if (rest.length === 0) process.exitCode = check(strict);
else {
  console.error("usage: npm run compat [-- <base> <revision>] [--strict]");
  process.exitCode = 2;
}
