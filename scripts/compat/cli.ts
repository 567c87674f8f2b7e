// `npm run compat -- <base> <revision>`: any two OpenAPI documents (JSON or YAML, 3.0 or 3.1; a
// file or a git revision's file, `main:generated/openapi/openapi.json`), as `oasdiff breaking`
// compares them. `npm run compat`: the current contract against the latest release (decision V1).
// `npm run compat -- changelog <base> <revision>`: every change, grouped by operation.
// `npm run release -- 1.1.0`: record the current contract as that release and write CHANGELOG.md.
// Options: --format text|json|yaml|markdown|html|junit|githubactions, --fail-on ERR|WARN,
// --strict (UNCLASSIFIED fails too), --allow-list <file> (allow-list.ts).
// Exit 1 when a finding of a failing level is not allowed, 0 otherwise, 2 on bad input or usage.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { applyAllowList, readAllowList, type AllowEntry } from "./allow-list.ts";
import { changelogSection } from "./changelog.ts";
import { compareDocuments, type Finding } from "./compare.ts";
import {
  formats,
  renderChangelog,
  renderReport,
  summaryText,
  type Format,
  type Meta,
  type Reported,
} from "./formats.ts";
import { loadInput, type Input } from "./inputs.ts";
import { LoadError } from "./load.ts";
import {
  compareVersions,
  listReleases,
  readRelease,
  recordRelease,
  releasesDir,
} from "./releases.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const currentFile = join(root, "generated/openapi/openapi-3.0.json");
const current = () => JSON.parse(readFileSync(currentFile, "utf8"));

const usage = `usage: npm run compat -- [changelog] [<base> <revision>] [--format ${formats.join("|")}] [--fail-on ERR|WARN] [--strict] [--allow-list <file>]
       npm run release -- <MAJOR.MINOR.PATCH>
  <base>, <revision>: a file (JSON or YAML) or a git revision's file, <rev>:<path> (main:generated/openapi/openapi.json)`;

class UsageError extends Error {}

interface Options {
  format: Format;
  failing: Set<Finding["level"]>;
  allow: AllowEntry[];
  failOnGiven: boolean;
}

function options(values: Record<string, string | boolean | undefined>): Options {
  const format = (values.format ?? "text") as Format;
  if (!formats.includes(format))
    throw new UsageError(`--format ${format}: expected one of ${formats.join(", ")}`);
  const failOn = String(values["fail-on"] ?? "ERR").toUpperCase();
  if (failOn !== "ERR" && failOn !== "WARN")
    throw new UsageError(`--fail-on ${values["fail-on"]}: expected ERR or WARN`);
  const failing = new Set<Finding["level"]>(failOn === "WARN" ? ["ERR", "WARN"] : ["ERR"]);
  if (values.strict) failing.add("UNCLASSIFIED");
  const allow = typeof values["allow-list"] === "string" ? readAllowList(values["allow-list"]) : [];
  return { format, failing, allow, failOnGiven: values["fail-on"] !== undefined };
}

/** Prints the result and says whether the gate fails. */
function emitResult(
  kind: "report" | "changelog",
  findings: Finding[],
  o: Options,
  meta: Omit<Meta, "failing">,
  failOn = true,
): number {
  const { findings: reported, unused } = applyAllowList(findings, o.allow);
  for (const e of unused)
    console.error(`compat: allow-list entry ${e.rule} ${e.operation} matched no finding (stale?)`);
  const m: Meta = { ...meta, failing: o.failing };
  console.log(
    kind === "report"
      ? renderReport(reported, o.format, m)
      : renderChangelog(reported, o.format, m),
  );
  const fails = (f: Reported) => !f.allowed && o.failing.has(f.level);
  return failOn && reported.some(fails) ? 1 : 0;
}

function compareInputs(
  kind: "report" | "changelog",
  base: string,
  revision: string,
  o: Options,
): number {
  const [b, r]: Input[] = [loadInput(base), loadInput(revision)];
  const findings = compareDocuments(b.doc, r.doc);
  return emitResult(
    kind,
    findings,
    o,
    {
      title: `compat${kind === "changelog" ? " changelog" : ""}: ${base} -> ${revision}`,
      base,
      revision,
      baseText: b.text,
      baseFile: b.file,
      revisionText: r.text,
      revisionFile: r.file,
    },
    kind === "report" || o.failOnGiven,
  );
}

/** Without documents: the current contract against the latest release (V1). */
function check(kind: "report" | "changelog", o: Options): number {
  const releases = listReleases(root);
  if (releases.length === 0) {
    console.error(
      "compat: no release recorded in generated/openapi/releases; run `npm run release -- 1.0.0` once",
    );
    return 2;
  }
  const latest = releases[releases.length - 1];
  const baseFile = join(releasesDir(root), `${latest}.json`);
  const findings = compareDocuments(readRelease(root, latest), current());
  const breaking = findings.filter((f) => f.level === "ERR").length;
  return emitResult(
    kind,
    findings,
    o,
    {
      title: `compat: ${findings.length} change(s) against release ${latest}, ${breaking} breaking`,
      base: `release ${latest}`,
      revision: "generated/openapi/openapi-3.0.json",
      baseText: readFileSync(baseFile, "utf8"),
      baseFile: relative(process.cwd(), baseFile),
      revisionText: readFileSync(currentFile, "utf8"),
      revisionFile: relative(process.cwd(), currentFile),
    },
    kind === "report" || o.failOnGiven,
  );
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
  if (findings.some((f) => f.level === "ERR")) {
    console.error(
      renderReport(findings, "text", {
        title: `release: against ${latest}`,
        base: latest,
        revision: version,
        failing: new Set(["ERR"]),
      }),
    );
    console.error("release: breaking changes belong in /v2 (decision V1); nothing recorded");
    return 1;
  }
  const file = recordRelease(root, version, doc);
  const changelog = join(root, "CHANGELOG.md");
  const head =
    "# Changelog\n\nChanges of the Developer Platform API contract, written by `npm run release` from the compatibility changelog (`npm run compat -- changelog`), grouped by operation, each change under its rule (scripts/compat/README.md).\n";
  const previous = existsSync(changelog)
    ? readFileSync(changelog, "utf8")
        .replace(/^# Changelog\n\n[^\n]*\n/, "")
        .trimStart()
    : "";
  const section = latest
    ? changelogSection(version, findings, new Date().toISOString().slice(0, 10))
    : `## ${version}\n\nFirst release.`;
  writeFileSync(changelog, `${head}\n${section}\n\n${previous}`.trimEnd() + "\n");
  console.log(
    `release ${version} recorded in ${file}; CHANGELOG.md updated (${summaryText(findings)})`,
  );
  return 0;
}

function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: "string" },
        "fail-on": { type: "string" },
        strict: { type: "boolean" },
        "allow-list": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    console.error(`compat: ${(e as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return 0;
  }
  try {
    if (positionals[0] === "release") return release(positionals[1]);
    const kind = positionals[0] === "changelog" ? "changelog" : "report";
    const docs = kind === "changelog" ? positionals.slice(1) : positionals;
    const o = options(values);
    if (docs.length === 2) return compareInputs(kind, docs[0], docs[1], o);
    if (docs.length === 0) return check(kind, o);
    throw new UsageError(`expected two documents (base and revision) or none, got ${docs.length}`);
  } catch (e) {
    if (e instanceof LoadError || e instanceof UsageError) {
      console.error(`compat: ${e.message}${e instanceof UsageError ? `\n${usage}` : ""}`);
      return 2;
    }
    throw e;
  }
}

process.exitCode = main(process.argv.slice(2));
