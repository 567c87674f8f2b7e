// Builds the labelled agreement set from a checkout of oasdiff (github.com/oasdiff/oasdiff):
//   node scripts/compat/oasdiff/extract.ts <oasdiff checkout> <commit>
// Each Go test of checker/*_test.go that loads two spec files from data/ untouched (no edit of the
// loaded spec in Go, default diff config) becomes a pair; its label is the highest level, in
// oasdiff's own rule catalogue (checker/rules.go), of the rule ids the test asserts, or "silent"
// when it asserts that nothing is found. Labels come from the Go source only, never from our
// results. The spec files of data/ (YAML and JSON only) are copied to test/compat/oasdiff/data/.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";

type Level = "ERR" | "WARN" | "INFO";
export interface LabelledPair {
  test: string;
  goFile: string;
  base: string;
  revision: string;
  /** Rule ids the test asserts are found, with their level in oasdiff's catalogue. */
  expected: { id: string; level: Level }[];
  /** Lowest level the test's check looked at (what an empty result means). */
  threshold: Level;
  /** `single` when the test ran one check only (singleCheckConfig): its silence says nothing of the others. */
  scope: "single" | "all";
  /** ERR, WARN, INFO (only INFO findings asserted) or silent (nothing found at `threshold`). */
  label: Level | "silent";
}

const [src, commit] = process.argv.slice(2);
if (!src || !commit) {
  console.error("usage: node scripts/compat/oasdiff/extract.ts <oasdiff checkout> <commit>");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const out = join(root, "test/compat/oasdiff");
const checkerDir = join(src, "checker");
const goFiles = readdirSync(checkerDir).filter((f) => f.endsWith(".go"));
const read = (f: string) => readFileSync(join(checkerDir, f), "utf8");

// Rule id constants (FooId = "foo") and their levels in the catalogue.
const idValue = new Map<string, string>();
for (const f of goFiles.filter((f) => !f.endsWith("_test.go")))
  for (const m of read(f).matchAll(/\b(\w+Id)\s*=\s*"([a-z0-9-]+)"/g)) idValue.set(m[1], m[2]);
const levelOf = new Map<string, Level>();
for (const m of read("rules.go").matchAll(
  /newBackwardCompatibilityRule\(\s*(\w+Id),\s*(ERR|WARN|INFO)\b/g,
)) {
  const id = idValue.get(m[1]);
  if (id) levelOf.set(id, m[2] as Level);
}

const helpers: Record<string, string> = {
  deprecationFile: "deprecation",
  paramDeprecationFile: "param-deprecation",
  requiredPropertyFile: "required-properties",
  stabilityFile: "stability",
};

/** The spec files a test body loads, in order. */
function loads(body: string): string[] {
  const files: { at: number; file: string }[] = [];
  // Only a path handed to a loader is a load; elsewhere (load.NewSource or a Source field of an
  // expected change) it names where a finding was found.
  for (const m of body.matchAll(
    /(?:\bopen\(|LoadFromFile\(|NewSpecInfo\(\s*\w+,\s*load\.NewSource\()\s*"(\.\.\/data\/[^"]+\.(?:ya?ml|json))"/g,
  ))
    files.push({ at: m.index, file: m[1] });
  for (const m of body.matchAll(/\b(\w+File)\("([^"]+)"\)/g))
    if (helpers[m[1]]) files.push({ at: m.index, file: `../data/${helpers[m[1]]}/${m[2]}` });
  for (const m of body.matchAll(/\bl\(t,\s*(\d+)\)/g))
    files.push({ at: m.index, file: `../data/openapi-test${m[1]}.yaml` });
  for (const m of body.matchAll(/\bd\(t,\s*[^,]+,\s*(\d+),\s*(\d+)\)/g)) {
    files.push({ at: m.index, file: `../data/openapi-test${m[1]}.yaml` });
    files.push({ at: m.index + 1, file: `../data/openapi-test${m[2]}.yaml` });
  }
  for (const m of body.matchAll(/\bloadFrom\(t,\s*"([^"]+)",\s*(\d+)\)/g))
    files.push({ at: m.index, file: `${m[1]}spec${m[2]}.yaml` });
  for (const m of body.matchAll(/\bstabilityChanges\(t,\s*"([^"]+)",\s*"([^"]+)"/g)) {
    files.push({ at: m.index, file: `../data/stability/${m[1]}` });
    files.push({ at: m.index + 1, file: `../data/stability/${m[2]}` });
  }
  return files.sort((a, b) => a.at - b.at).map((f) => f.file);
}

/** Why a test cannot be a file pair, or undefined when it can. */
function unusable(body: string, files: string[]): string | undefined {
  if (files.length !== 2) return `loads ${files.length} files`;
  if (/\.Spec\b|\bdelete\w*\(|\bset\w+\(|\.Value\s*=|\bLoadFromData\b|\bLoadFromURI\b/.test(body))
    return "edits or builds the spec in Go";
  if (
    /diff\.NewConfig\(\)\.With|diff\.Config\{|config\.\w+\s*=|\.With(?:Deprecation|Attributes|Policy|SeverityLevels|Flatten\w*|Sunset\w*|Required|BreakingFormat\w*|TypeChange\w*|Default\w*)\(/.test(
      body,
    )
  )
    return "non-default config";
  if (
    /\bcomposed\b|\[\]\*load\.SpecInfo|CheckBackwardCompatibility\w*\([^)]*\)\s*\n[^]*CheckBackwardCompatibility\w*\(/.test(
      body,
    )
  )
    return "several checks or composed mode";
  if (!/CheckBackwardCompatibility|stabilityChanges|nullableWrapChanges/.test(body))
    return "does not run the checker";
  return undefined;
}

const rank: Record<Level, number> = { INFO: 0, WARN: 1, ERR: 2 };
const pairs: LabelledPair[] = [];
const skipped = new Map<string, number>();
for (const goFile of goFiles.filter((f) => f.endsWith("_test.go"))) {
  const text = read(goFile);
  for (const m of text.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{\n([^]*?)^\}$/gm)) {
    const [, test, body] = m;
    const files = loads(body);
    const why = unusable(body, files);
    if (why) {
      skipped.set(why, (skipped.get(why) ?? 0) + 1);
      continue;
    }
    const threshold: Level = /stabilityChanges|nullableWrapChanges/.test(body)
      ? "INFO"
      : ((/CheckBackwardCompatibilityUntilLevel\([^]*?checker\.(ERR|WARN|INFO)\)/.exec(
          body,
        )?.[1] as Level | undefined) ?? "WARN");
    const denied = new Set(
      [
        ...body.matchAll(
          /(?:requireNoChange|NotContains|NotEqual|False\(t,\s*containsId)\([^)]*?checker\.(\w+Id)\b/g,
        ),
      ].map((x) => x[1]),
    );
    const expected = new Map<string, Level>();
    for (const x of body.matchAll(/checker\.(\w+Id)\b/g)) {
      if (denied.has(x[1])) continue;
      const id = idValue.get(x[1]);
      const level = id && levelOf.get(id);
      if (id && level) expected.set(id, level);
    }
    for (const x of body.matchAll(/"([a-z]+(?:-[a-z0-9]+){2,})"/g)) {
      const level = levelOf.get(x[1]);
      if (level && !new RegExp(`(?:requireNoChange|NotContains)\\([^)]*"${x[1]}"`).test(body))
        expected.set(x[1], level);
    }
    const empty =
      /require\.(?:Empty|Len\(t,\s*\w+,\s*0\))|verifyNonBreakingChangeIsChangelogEntry/.test(body);
    // Tests that assert a level without naming the rule (require.Equal(t, checker.ERR, errs[0].GetLevel())).
    const assertedLevels = [
      ...body.matchAll(/checker\.(ERR|WARN|INFO),\s*[\w.[\]]+\.GetLevel\(\)/g),
    ].map((x) => x[1] as Level);
    if (expected.size === 0 && assertedLevels.length === 0 && !empty) {
      skipped.set("asserts no rule id", (skipped.get("asserts no rule id") ?? 0) + 1);
      continue;
    }
    if (files[0] === files[1] && expected.size + assertedLevels.length > 0) {
      skipped.set(
        "edits the spec in Go (same file on both sides)",
        (skipped.get("edits the spec in Go (same file on both sides)") ?? 0) + 1,
      );
      continue;
    }
    const levels = [...expected.values(), ...assertedLevels];
    const top = levels.sort((a, b) => rank[b] - rank[a])[0];
    const label: LabelledPair["label"] = top ?? "silent";
    const rel = (f: string) => normalize(f.replace(/^\.\.\/data\//, ""));
    pairs.push({
      test,
      goFile,
      base: rel(files[0]),
      revision: rel(files[1]),
      expected: [...expected].map(([id, level]) => ({ id, level })),
      threshold,
      scope: /singleCheckConfig|WithSingleCheck/.test(body) ? "single" : "all",
      label,
    });
  }
}

// Copy the spec files and every file they $ref.
const dataSrc = join(src, "data");
const dataOut = join(out, "data");
const copied = new Set<string>();
function copy(rel: string): void {
  if (copied.has(rel)) return;
  copied.add(rel);
  const from = join(dataSrc, rel);
  if (!existsSync(from)) return;
  mkdirSync(dirname(join(dataOut, rel)), { recursive: true });
  copyFileSync(from, join(dataOut, rel));
  for (const m of readFileSync(from, "utf8").matchAll(
    /\$ref:\s*['"]?([^'"#\s]+)(?:#[^'"\s]*)?['"]?/g,
  ))
    if (!/^https?:/.test(m[1])) copy(relative(dataSrc, resolve(dirname(from), m[1])));
}
const missing = new Set<string>();
for (const p of pairs)
  for (const f of [p.base, p.revision]) {
    if (existsSync(join(dataSrc, f))) copy(f);
    else missing.add(f);
  }
const kept = pairs.filter((p) => !missing.has(p.base) && !missing.has(p.revision));
// Every other spec document of data/ too: each is compared with itself, which must show no change.
const everySpec = (dir: string): string[] =>
  readdirSync(join(dataSrc, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? everySpec(join(dir, e.name))
      : /\.(ya?ml|json)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
for (const f of everySpec("")) copy(f);
copyFileSync(join(src, "LICENSE"), join(out, "LICENSE"));
// Written as prettier writes it, since `npm run lint:format` checks test/.
const labels = {
  source: "https://github.com/oasdiff/oasdiff",
  commit,
  skipped: Object.fromEntries(skipped),
  pairs: kept,
};
const labelsFile = join(out, "labels.json");
writeFileSync(
  labelsFile,
  await format(JSON.stringify(labels), {
    ...(await resolveConfig(labelsFile)),
    filepath: labelsFile,
  }),
);
const count = (l: string) => kept.filter((p) => p.label === l).length;
console.log(
  `${kept.length} pairs (ERR ${count("ERR")}, WARN ${count("WARN")}, INFO ${count("INFO")}, silent ${count("silent")}); ${copied.size} files; skipped`,
  Object.fromEntries(skipped),
  missing.size ? `missing ${[...missing]}` : "",
);
