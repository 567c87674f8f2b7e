// Builds the second peer's labelled pairs from openapi-diff (github.com/OpenAPITools/openapi-diff,
// Apache-2.0): `node scripts/compat/openapi-diff/extract.ts <git dir> <commit>` reads its Java tests
// (core/src/test/java, read only to take labels; no code is copied) and copies the spec documents of
// core/src/test/resources (YAML and JSON only) with its LICENSE.
// A pair's label is what openapi-diff's own test asserts of the whole comparison:
//   breaking:   assertSpecIncompatible, assertOpenApiBackwardIncompatible, isIncompatible() true,
//               isCompatible() false
//   compatible: assertSpecUnchanged, assertSpecChangedButCompatible, assertOpenApiBackwardCompatible,
//               assertOpenApiAreEquals, isCompatible() true, isIncompatible() false, isUnchanged() true
// A test that asserts neither (assertOpenApiChangedEndpoints, field-level assertions) gives no label.
// The pairs are split by test class: classes whose name hashes into the held-out part go to
// test/compat/openapi-diff-heldout (scored only at the end, issue 38), the rest to
// test/compat/openapi-diff (built against).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface PeerPair {
  test: string;
  base: string;
  revision: string;
  label: "breaking" | "compatible";
  assertion: string;
  /** The openapi-diff check an assertSpecIncompatible turned on (some are off by default). */
  check?: string;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const git = (gitDir: string, ...args: string[]) =>
  execFileSync("git", ["--git-dir", gitDir, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });

const helpers: Record<string, PeerPair["label"] | undefined> = {
  assertSpecIncompatible: "breaking",
  assertOpenApiBackwardIncompatible: "breaking",
  assertSpecUnchanged: "compatible",
  assertSpecChangedButCompatible: "compatible",
  assertOpenApiBackwardCompatible: "compatible",
  assertOpenApiAreEquals: "compatible",
};

/** The labelled pairs of one Java test class. */
export function pairsOfClass(className: string, java: string): PeerPair[] {
  const strings = (text: string) =>
    new Map(
      [...text.matchAll(/String\s+(\w+)\s*=\s*"([^"]+\.(?:ya?ml|json))"/g)].map(
        (m) => [m[1], m[2]] as const,
      ),
    );
  // Fields of the class (before the first test), then each test's own local variables, which
  // may reuse a field's name for another file.
  const fields = strings(java.split(/@Test\b/)[0]);
  const out: PeerPair[] = [];
  for (const [n, chunk] of java
    .split(/@Test\b/)
    .slice(1)
    .entries()) {
    const body = chunk.replace(/\/\/[^\n]*/g, "");
    const locals = strings(body);
    const arg = (a: string) => {
      const t = a.trim();
      const lit = /^"([^"]+)"$/.exec(t);
      return lit ? lit[1] : (locals.get(t) ?? fields.get(t));
    };
    const method = /void\s+(\w+)\s*\(/.exec(body)?.[1] ?? `test${n}`;
    const test = `${className}.${method}`;
    for (const m of body.matchAll(
      /\b(assert\w+)\(\s*([\w".\/-]+)\s*,\s*([\w".\/-]+)\s*(?:,\s*(\w+)\s*)?[,)]/g,
    )) {
      const label = helpers[m[1]];
      const [b, r] = [arg(m[2]), arg(m[3])];
      // assertSpecIncompatible names the check (BackwardIncompatibleProp) it turns on.
      const prop =
        m[4] && /^[A-Z_]+$/.test(m[4])
          ? m[4]
          : /(\w+)\s*;\s*$/.exec(
              body.slice(0, m.index).split("BackwardIncompatibleProp prop =").pop() ?? "",
            )?.[1];
      if (label && b && r)
        out.push({
          test,
          base: b,
          revision: r,
          label,
          assertion: m[1],
          ...(m[1] === "assertSpecIncompatible" && prop ? { check: prop } : {}),
        });
    }
    // fromLocations(a, b) followed by whole-comparison assertions on its variable.
    const calls = [
      ...body.matchAll(
        /(\w+)\s*=\s*(?:\n\s*)?OpenApiCompare\.fromLocations\(\s*([\w".\/-]+)\s*,\s*([\w".\/-]+)\s*[,)]/g,
      ),
    ];
    calls.forEach((m, i) => {
      const [b, r] = [arg(m[2]), arg(m[3])];
      if (!b || !r) return;
      const v = m[1];
      const rest = body.slice(m.index, calls[i + 1]?.index ?? body.length);
      const says = (re: RegExp) => re.test(rest);
      const whole = (method: string, value: string) =>
        says(new RegExp(`assertThat\\(${v}\\.${method}\\(\\)\\)\\.is${value}\\(\\)`)) ||
        says(new RegExp(`assert${value}\\(${v}\\.${method}\\(\\)\\)`));
      let label: PeerPair["label"] | undefined;
      let assertion = "";
      if (whole("isIncompatible", "True") || whole("isCompatible", "False")) {
        label = "breaking";
        assertion = "isIncompatible";
      } else if (
        whole("isCompatible", "True") ||
        whole("isIncompatible", "False") ||
        whole("isUnchanged", "True")
      ) {
        label = "compatible";
        assertion = "isCompatible";
      }
      if (label) out.push({ test, base: b, revision: r, label, assertion });
    });
  }
  return out;
}

/** Classes whose name hashes into the last 3 of 10 buckets are held out. */
export const heldOut = (className: string) =>
  createHash("sha256").update(className).digest()[0] % 10 >= 7;

function main(gitDir: string, commit: string): void {
  const javaFiles = git(gitDir, "ls-tree", "-r", "--name-only", commit, "core/src/test/java")
    .split("\n")
    .filter((f) => f.endsWith("Test.java"));
  const seen: PeerPair[] = [];
  const held: PeerPair[] = [];
  for (const f of javaFiles) {
    const className = f
      .split("/")
      .pop()!
      .replace(/\.java$/, "");
    const pairs = pairsOfClass(className, git(gitDir, "show", `${commit}:${f}`));
    (heldOut(className) ? held : seen).push(...pairs);
  }
  const resources = "core/src/test/resources/";
  const specs = git(gitDir, "ls-tree", "-r", "--name-only", commit, resources)
    .split("\n")
    .filter((f) => /\.(ya?ml|json)$/.test(f));
  for (const [dir, pairs] of [
    ["openapi-diff", seen],
    ["openapi-diff-heldout", held],
  ] as const) {
    const out = join(root, "test/compat", dir);
    // Only what this script writes is replaced (judged.json, written by hand, stays).
    rmSync(join(out, "data"), { recursive: true, force: true });
    mkdirSync(join(out, "data"), { recursive: true });
    writeFileSync(join(out, "LICENSE"), git(gitDir, "show", `${commit}:LICENSE`));
    // The documents of this part's pairs and every file they $ref, nothing of the other part's.
    const wanted = [...new Set(pairs.flatMap((p) => [p.base, p.revision]))];
    const copied = new Set<string>();
    while (wanted.length) {
      const rel = posix.normalize(wanted.pop()!);
      if (copied.has(rel) || !specs.includes(resources + rel)) continue;
      copied.add(rel);
      const text = git(gitDir, "show", `${commit}:${resources}${rel}`);
      const target = join(out, "data", rel);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
      for (const m of text.matchAll(/\$ref["']?\s*:\s*["']?([^"'#\s]+\.(?:ya?ml|json))/g))
        wanted.push(posix.join(posix.dirname(rel), m[1]));
    }
    writeFileSync(
      join(out, "labels.json"),
      JSON.stringify(
        {
          source: "https://github.com/OpenAPITools/openapi-diff",
          commit,
          licence: "Apache-2.0 (LICENSE)",
          part: dir.endsWith("heldout") ? "held out" : "built against",
          pairs,
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`${dir}: ${pairs.length} labelled tests`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv[2], process.argv[3]);
