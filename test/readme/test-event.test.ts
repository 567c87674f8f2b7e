// The README's test-event program (issue 41 item 2), run as written against the real platform
// (ALLOW_HTTP_LOOPBACK_WEBHOOKS, the system clock, its own worker): it subscribes a loopback
// receiver, asks for a test mail.bounced, checks the Standard Webhooks headers with the client's
// checkStandardWebhook and sees the delivery logged. Only the README's base URL, key and receiver
// port are replaced by this run's.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../server/test/free-port.ts";
import { readmeProgram } from "./readme-program.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../server/test/harness.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "test-event-example-"));
let p: TestPlatform;
let demo: Tenant;

beforeAll(async () => {
  p = await startTestPlatform({ allowHttpLoopbackWebhooks: true });
  demo = await p.newTenant("example");
});
afterAll(async () => {
  await p?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("the README's test-event program receives a signed sample, verifies its Standard Webhooks headers and sees it logged", async () => {
  const port = String(await freePort());
  const client = pathToFileURL(path.join(repo, "generated/client/dist/node.js")).href;
  const webhooks = pathToFileURL(path.join(repo, "generated/client/dist/webhooks.js")).href;
  const program = readmeProgram("Test events: a signed sample now, checked against replays")
    .replace('"@platform-api/client/webhooks"', JSON.stringify(webhooks))
    .replace('"@platform-api/client"', JSON.stringify(client))
    .replaceAll("http://127.0.0.1:8080", p.url)
    .replaceAll("4001", port);
  expect(program.split(p.url)).toHaveLength(2);
  expect(program.split(port)).toHaveLength(3);
  const file = path.join(dir, "test-event-example.ts");
  writeFileSync(file, program);

  const child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH!, PLATFORM_KEY: demo.key },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (out += c));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  expect(out.split("\n").filter(Boolean)).toEqual([
    "queued mail.bounced pending",
    "verified mail.bounced test event recipient@example.org",
    "logged delivered 204 test",
  ]);
  expect(code).toBe(0);

  // What the program did is in the log, marked as a test.
  const hooks = (await demo.api("GET", "/v1/webhooks")).body.webhooks;
  const log = (await demo.api("GET", `/v1/webhooks/${hooks[0].id}/deliveries`)).body.deliveries;
  expect(log).toEqual([
    expect.objectContaining({
      event: "mail.bounced",
      status: "delivered",
      attempts: 1,
      test: true,
    }),
  ]);
});
