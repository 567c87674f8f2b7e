// A commit's tree to benchmark beside the working tree: `git archive` into a temporary folder
// (no `git worktree add`: that would write into the shared repository's metadata), with
// node_modules a symlink to the running tree's own. That is sound only while the commit's
// lockfile pins what the running tree's node_modules holds; `checkDependencies` says where not.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface Tree {
  /** What the reader is told: the commit's short hash, or "working tree". */
  label: string;
  root: string;
  remove(): void;
}

const git = (cwd: string, args: string[]) => execFileSync("git", args, { cwd, maxBuffer: 1 << 30 });

/** `commit` of the repository at `repo` as a folder of its own; "." is the working tree itself. */
export function treeOf(repo: string, commit: string): Tree {
  if (commit === ".") return { label: "working tree", root: repo, remove: () => {} };
  const hash = git(repo, ["rev-parse", "--short", `${commit}^{commit}`]).toString().trim();
  const root = mkdtempSync(path.join(tmpdir(), `bench-tree-${hash}-`));
  try {
    execFileSync("tar", ["-x", "-C", root], { input: git(repo, ["archive", "--format=tar", hash]), maxBuffer: 1 << 30 });
    symlinkSync(realpathSync(path.join(repo, "node_modules")), path.join(root, "node_modules"));
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return { label: hash, root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

interface Lock {
  packages: Record<string, { version?: string }>;
}

/**
 * The packages whose pinned version in `tree`'s lockfile differs from the running tree's (or that
 * it has and the running tree lacks): each would run a version its commit never pinned. A package
 * only the running tree has is harmless (the old code never imports it).
 */
export function checkDependencies(tree: Tree, running: string): string[] {
  const read = (root: string) => JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as Lock;
  if (!existsSync(path.join(tree.root, "package-lock.json"))) return ["(no package-lock.json)"];
  const mine = read(running).packages;
  const theirs = read(tree.root).packages;
  return Object.entries(theirs)
    .filter(([name, p]) => name !== "" && mine[name]?.version !== p.version)
    .map(([name, p]) => `${name.replace(/^node_modules\//, "")} ${p.version} (here ${mine[name]?.version ?? "missing"})`);
}

/** The first of `candidates` (paths inside the tree) that exists: bench files moved in issue 37. */
export function fileIn(tree: Tree, ...candidates: string[]): URL {
  for (const c of candidates) {
    const file = path.join(tree.root, c);
    if (existsSync(file)) return new URL(`file://${file}`);
  }
  throw new Error(`${tree.label}: none of ${candidates.join(", ")}`);
}
