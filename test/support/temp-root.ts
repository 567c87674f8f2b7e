// vitest globalSetup: every temporary folder a test makes (mkdtemp under os.tmpdir()) goes under
// one folder of this run, removed when the run ends. Tests that failed or were cut short used to
// leave theirs in /tmp: hundreds of reading-*, conformance-*, media-*, auth-* folders after a few
// runs, on machines where /tmp is small. Set before the test processes start, so they inherit it.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(path.join(tmpdir(), "platform-tests-"));
  // Traversable by other users: the PostgreSQL test clusters run as `postgres` in a folder below.
  chmodSync(root, 0o755);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
