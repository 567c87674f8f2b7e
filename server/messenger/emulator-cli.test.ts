// `npm run messenger:emulator` as a user runs it (issue 27 item 8): the printed settings start a
// platform that talks to it, the printed bot connects, and `say` on its standard input reaches the
// project's forward URL through the platform's hook.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, expect, it } from "vitest";
import { defaults } from "../config.ts";
import { startTestPlatform, type TestPlatform } from "../test/harness.ts";
import { startReceiver, type Receiver } from "./test/messenger-fixture.ts";

let child: ChildProcess | undefined;
let platform: TestPlatform | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  if (child && child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
  await platform?.stop();
  await receiver?.close();
});

async function until<T>(what: () => T | undefined, output: () => string): Promise<T> {
  for (;;) {
    const value = what();
    if (value !== undefined) return value;
    if (child!.exitCode !== null) throw new Error(`emulator exited:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it("prints the server settings and a bot, and delivers what the user says to the bot's forward URL", async () => {
  child = spawn("npm", ["run", "messenger:emulator", "--", "--port", "0"], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const settings = await until(() => /MESSENGER_API_ROOT=(\S+) MESSENGER_MANAGER_TOKEN=(\S+) ALLOW_HTTP_LOOPBACK_WEBHOOKS=(on) npm start/.exec(out) ?? undefined, () => out);
  // The paths it names are the contract's (it said POST /v1/messenger/bots, which does not exist).
  expect(out).toContain("POST /v1/messenger/mybots {");
  expect(out).not.toMatch(/\/v1\/messenger\/bots\b/);
  const botToken = await until(() => /@demo_shop_bot {2}(\S+)/.exec(out)?.[1], () => out);

  platform = await startTestPlatform({ allowHttpLoopbackWebhooks: settings[3] === "on", messenger: { ...defaults.messenger, apiRoot: settings[1], managerToken: settings[2] } });
  const tenant = await platform.newTenant("emu");
  receiver = await startReceiver();
  const added = await tenant.api("POST", "/v1/messenger/mybots", { token: botToken });
  expect(added.status).toBe(200);
  expect(added.body.username).toBe("demo_shop_bot");
  expect((await tenant.api("POST", `/v1/messenger/mybots/${added.body.id}/webhook`, { forwardUrl: receiver.url })).status).toBe(200);

  child.stdin!.write("say demo_shop_bot hello from the emulator\n");
  const body = await until(() => receiver!.bodies[0], () => out);
  expect(JSON.parse(body).message).toMatchObject({ text: "hello from the emulator", from: { id: 1001, first_name: "Tester" } });
  expect(out).toMatch(/update \d+ -> http:\/\/127\.0\.0\.1:\d+\/hooks\/messenger\/\S+: 200/);
});
