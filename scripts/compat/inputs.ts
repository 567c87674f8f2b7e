// The gate's inputs: a file, or a git revision's file written `<rev>:<path>` as `git show` takes it
// (`main:generated/openapi/openapi.json`, `v1.0.0:spec.yaml`), so comparing with the last release
// needs no temporary file. Files a document $refs are read from the same revision.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { LoadError, loadDocument, type Doc } from "./load.ts";

export interface Input {
  doc: Doc;
  /** The document's text, for mapping a finding's pointer to a line (GitHub annotations). */
  text: string;
  /** The path an annotation names: the file, or the path inside the repository for a git ref. */
  file: string;
}

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 28,
    stdio: ["ignore", "pipe", "pipe"],
  });

/** `<rev>:<path>` names a git revision's file when no file of that name exists. */
export const isGitRef = (input: string) =>
  !existsSync(input) && /^[^:\s]+:[^:]+$/.test(input) && !/^[a-z]+:\/\//i.test(input);

export function loadInput(input: string, cwd = process.cwd()): Input {
  if (!isGitRef(input)) {
    const doc = loadDocument(input);
    return { doc, text: readFileSync(resolve(input), "utf8"), file: input };
  }
  const colon = input.indexOf(":");
  const rev = input.slice(0, colon);
  const path = input.slice(colon + 1);
  let top: string;
  try {
    top = git(cwd, ["rev-parse", "--show-toplevel"]).trim();
  } catch {
    throw new LoadError(`cannot read ${input}: ${cwd} is not inside a git repository`);
  }
  // `rev:path` is relative to the repository's top, `rev:./path` to the current directory (as git).
  const abs =
    path.startsWith("./") || path.startsWith("../") ? resolve(cwd, path) : join(top, path);
  const read = (file: string) => {
    const rel = relative(top, file).split("\\").join("/");
    if (rel.startsWith("..")) throw new Error(`${file} is outside the repository`);
    try {
      return git(top, ["show", `${rev}:${rel}`]);
    } catch (e) {
      const why = String((e as { stderr?: string }).stderr ?? (e as Error).message).trim();
      throw new Error(why.split("\n")[0] || `git show ${rev}:${rel} failed`);
    }
  };
  const doc = loadDocument(abs, read, input);
  return { doc, text: read(abs), file: relative(top, abs).split("\\").join("/") };
}
