// The README's test-recipient program (issue 27 item 2), run as written: a loopback receiver that
// verifies every webhook delivery's signature with the client's verifyWebhookSignature, then a
// send to each sandbox address. The server is the real platform with ALLOW_HTTP_LOOPBACK_WEBHOOKS
// and a manual clock, so the retry of softbounced@ (a minute later) is reached without waiting;
// the demo's example.test is the sender domain, as on a fresh `npm start`. Only the README's base
// URL, key and receiver port are replaced by this run's.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { manualClock } from "../../server/jobs/clock.ts";
import { RETRY_DELAYS_MS } from "../../server/mail-sending/retry-schedule.ts";
import { freePort } from "../../server/test/free-port.ts";
import { readmeProgram } from "./readme-program.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../server/test/harness.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "sandbox-example-"));
const clock = manualClock();
let p: TestPlatform;
let demo: Tenant;
let child: ChildProcess | undefined;

beforeAll(async () => {
  p = await startTestPlatform({ allowHttpLoopbackWebhooks: true }, { clock });
  demo = await p.newTenant("example");
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await p?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("the README's sandbox program gets each outcome's event, signature verified, and the reason of the delayed one", async () => {
  const port = String(await freePort());
  const client = pathToFileURL(path.join(repo, "generated/client/dist/node.js")).href;
  const webhooks = pathToFileURL(path.join(repo, "generated/client/dist/webhooks.js")).href;
  const original = readmeProgram("Test recipients: every outcome on purpose, offline");
  const program = original
    .replace('"@platform-api/client/webhooks"', JSON.stringify(webhooks))
    .replace('"@platform-api/client"', JSON.stringify(client))
    .replaceAll("http://127.0.0.1:8080", p.url)
    .replaceAll("4000", port);
  expect(program.split(p.url)).toHaveLength(2);
  expect(program.split(port)).toHaveLength(3);
  const file = path.join(dir, "sandbox-example.ts");
  writeFileSync(file, program);

  child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH!, PLATFORM_KEY: demo.key },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const lines = () => new Set(out.split("\n").filter(Boolean));
  const until = (holds: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (holds() ? resolve() : undefined);
      child!.stdout!.on("data", check);
      child!.once("exit", (code) =>
        holds() ? resolve() : reject(new Error(`the program exited (${code}):\n${out}`)),
      );
      check();
    });
  const at = (local: string) => `${local}@sandbox.platform.test`;
  const first = [
    `verified mail.delivered ${at("delivered")}`,
    `verified mail.delivered ${at("bounced")}`,
    `verified mail.bounced ${at("bounced")}`,
    `verified mail.delivered ${at("complained")}`,
    `verified mail.complained ${at("complained")}`,
    `verified mail.delivered ${at("opened")}`,
    `verified mail.opened ${at("opened")}`,
    `verified mail.delivered ${at("clicked")}`,
    `verified mail.clicked ${at("clicked")}`,
  ];
  await until(
    () => first.every((l) => lines().has(l)) && [...lines()].some((l) => l.startsWith("delayed ")),
  );
  expect([...lines()].find((l) => l.startsWith("delayed "))).toBe(
    `delayed ${at("delayed")} 451 4.2.1 sandbox: mailbox busy, try again later (every attempt)`,
  );
  expect([...lines()].filter((l) => l.includes(at("softbounced")))).toEqual([]);

  // A minute later the retry: softbounced@ is delivered, delayed@ is delayed again.
  clock.advance(RETRY_DELAYS_MS[0]);
  await p.worker.drain();
  await until(() => lines().has(`verified mail.delivered ${at("softbounced")}`));
  await until(() => lines().has("all 10 events verified"));
  expect([...lines()].filter((l) => !l.startsWith("delayed ")).sort()).toEqual(
    [...first, `verified mail.delivered ${at("softbounced")}`, "all 10 events verified"].sort(),
  );
  // It ends by itself once every event arrived (it used to listen forever).
  const code = child.exitCode ?? (await new Promise((resolve) => child!.once("exit", resolve)));
  expect(code).toBe(0);

  // Test recipients are never suppressed (decision SU2): bounced@ is sent (and bounces) again,
  // and the list the API shows has none of them.
  expect((await demo.api("GET", "/v1/mail/suppressions")).body).toEqual({ suppressions: [] });
  const again = await demo.api("POST", "/v1/mail/send", {
    from: "hello@example.test",
    to: at("bounced"),
    subject: "Again",
    text: "x",
  });
  expect(again.body.status).toBe("sent");
  const tagged = await demo.api("POST", "/v1/mail/send", {
    from: "hello@example.test",
    to: at("bounced+run2"),
    subject: "Again",
    text: "x",
  });
  expect(tagged.body.status).toBe("sent");
});

it("an unknown sandbox local part is refused naming the valid ones; opened@ without tracking shows no open, as a real recipient's could not", async () => {
  const unknown = await demo.api("POST", "/v1/mail/send", {
    from: "hello@example.test",
    to: "whoever@sandbox.platform.test",
    subject: "?",
    text: "x",
  });
  const untracked = await demo.api("POST", "/v1/mail/send", {
    from: "hello@example.test",
    to: "opened+plain@sandbox.platform.test",
    subject: "Plain",
    text: "x",
  });
  await p.worker.drain();
  const refused = (await demo.api("GET", `/v1/mail/messages/${unknown.body.id}`)).body;
  expect(refused.message.status).toBe("bounced");
  expect(refused.events[0].attempts[0]).toMatchObject({
    outcome: "bounced",
    reason: expect.stringContaining(
      "delivered, bounced, softbounced, complained, opened, clicked, delayed",
    ),
  });
  const plain = (await demo.api("GET", `/v1/mail/messages/${untracked.body.id}`)).body;
  expect(plain.message).toMatchObject({ status: "delivered", opens: 0 });
  expect(plain.events.map((e: { event: string }) => e.event)).toEqual(["sent", "delivered"]);
});
