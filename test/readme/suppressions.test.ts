// The README's suppression example (issue 41 item 1, decision SU3), run as written with bash,
// curl and jq against the real platform, the demo's example.test as the sender domain and its
// worker running: a send to a mailbox that does not exist bounces through local delivery, the
// address is listed with its message, the next send answers suppressed, and once the mailbox
// exists and the block is lifted the next message is delivered. Only the README's "a moment
// later" is waited for, by asking the API until it holds.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../server/test/harness.ts";

const repo = path.resolve(import.meta.dirname, "../..");
let p: TestPlatform;
let demo: Tenant;

beforeAll(async () => {
  p = await startTestPlatform();
  demo = await p.newTenant("example");
});
afterAll(async () => {
  await p?.stop();
});

/** The `sh` blocks of the README section under this heading, in order. */
function readmeBlocks(heading: string): string[] {
  const readme = readFileSync(path.join(repo, "README.md"), "utf8");
  const start = readme.indexOf(`\n### ${heading}\n`);
  expect(start, `README has no "### ${heading}" section`).toBeGreaterThan(0);
  return [
    ...readme
      .slice(start)
      .split(/\n##+ /)[1]
      .matchAll(/```sh\n([\s\S]*?)```/g),
  ].map((m) => m[1]);
}

const run = promisify(execFile);
/** One block in bash with the first mail's variables, as a reader's shell has them; its output lines. */
async function shell(block: string, env: Record<string, string> = {}): Promise<string[]> {
  const { stdout } = await run("bash", ["-euo", "pipefail", "-c", block], {
    env: {
      PATH: process.env.PATH!,
      KEY: demo.key,
      API: p.url,
      AUTH: `Authorization: Bearer ${demo.key}`,
      ...env,
    },
    encoding: "utf8",
  });
  return stdout.trim().split("\n");
}

/** Asks until holds() (the README's "a moment later"; the worker runs on its own): bounded by the test's timeout, not by a guess of how long it takes. */
async function eventually(holds: () => Promise<boolean>): Promise<void> {
  while (!(await holds())) await new Promise((r) => setTimeout(r, 50));
}

it("the README's blocks list a real bounce's suppression, answer suppressed, and lift it", async () => {
  const blocks = readmeBlocks("Suppressions: what is blocked, and lifting it");
  expect(blocks).toHaveLength(3);
  const listed = async () =>
    (await demo.api("GET", "/v1/mail/suppressions?address=bob@example.test")).body.suppressions as {
      id: number;
      messageId: string;
    }[];

  expect(await shell(blocks[0])).toEqual(["sent"]);
  await eventually(async () => (await listed()).length === 1);

  // Block 2 defines BLOCK for block 3, as one shell session would.
  const second = await shell(`${blocks[1]}\necho "BLOCK=$BLOCK"`);
  const [entry] = await listed();
  expect(second).toEqual([
    JSON.stringify({ reason: "bounced", stream: "all", messageId: entry.messageId }),
    "suppressed",
    `BLOCK=${entry.id}`,
  ]);
  const bounced = (await demo.api("GET", `/v1/mail/messages/${entry.messageId}`)).body.message;
  expect(bounced).toMatchObject({ toAddr: "bob@example.test", status: "bounced" });

  const third = await shell(blocks[2], { BLOCK: String(entry.id) });
  expect(third).toEqual(["bob@example.test", '{"deleted":true}', "sent"]);
  expect(await listed()).toEqual([]);
  const latest = async () =>
    (await demo.api("GET", "/v1/mail/messages?limit=1")).body.messages[0] as {
      toAddr: string;
      status: string;
    };
  await eventually(async () => (await latest()).status === "delivered");
  expect(await latest()).toMatchObject({ toAddr: "bob@example.test", status: "delivered" });
});
