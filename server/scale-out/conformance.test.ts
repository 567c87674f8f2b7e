// `npm run conformance:reference:scale-out` as a test: the whole conformance suite, with the
// reference fixtures, against two instances on one PostgreSQL through nginx round-robin, so every
// create, read, list and delete the suite chains may land on either instance.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
let child: ChildProcess | undefined;
// A run cut short (a timeout) takes its servers, nginx and cluster with it: each watches a pipe.
afterAll(() => void child?.kill("SIGKILL"));

it("conformance:reference passes through the proxy in front of two instances", { timeout: 1_200_000 }, async () => {
  child = spawn(process.execPath, [path.join(root, "conformance/scripts/reference.ts")], {
    cwd: root,
    env: { ...process.env, REFERENCE_BACKEND: "postgres", REFERENCE_INSTANCES: "2" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (chunk: Buffer) => (out = (out + chunk.toString()).slice(-200_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const code = await new Promise<number | null>((resolve) => child!.once("exit", resolve));
  const verdict = /^\d+ passed, \d+ failed$/m.exec(out)?.[0] ?? "no verdict line";
  console.log(`conformance:reference:scale-out: ${verdict}`);
  expect(code, out.slice(-20_000)).toBe(0);
});
