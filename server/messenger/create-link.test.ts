// Presets (shared from configuration, project-own from the console) and the bot-creation link:
// the manager bot's start link with a signed, expiring reference, the platform's newbot deep link,
// the managed_bot update, getManagedBotToken, the bot connected to the project and the preset
// applied (setMyCommands, setMyDescription, setMyShortDescription, setWebhook).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../console/commands.ts";
import { manualClock } from "../jobs/clock.ts";
import type { Tenant } from "../test/harness.ts";
import { signLinkRef, verifyLinkRef } from "./create-link.ts";
import { FORWARD_JOB } from "./forwarding.ts";
import { startMessenger, startReceiver, type MessengerSetup, type Receiver } from "./test/messenger-fixture.ts";

const clock = manualClock(Date.UTC(2026, 10, 23, 12));
let s: MessengerSetup;
let t: Tenant;
let receiver: Receiver;
let ownPresetId: string;

const shared = { id: "pre_support", name: "Support desk", commands: [{ command: "start", description: "Start" }, { command: "help", description: "Help" }] };

beforeAll(async () => {
  receiver = await startReceiver();
  s = await startMessenger({ clock, presets: [shared] });
  t = await s.platform.newTenant("links");
  const services = s.platform.services;
  const out = await runCommand(
    { projects: services.projects, keys: services.keys, zones: services.zones, scopes: [], bots: services.messenger.bots, allowHttpLoopback: true },
    ["presets", "create", "--project", t.projectId, "--name", "Shop bot", "--forward-url", receiver.url, "--commands", "start=Start shopping,cart=Show the cart", "--description", "The Acme shop", "--short-description", "Shop with us"],
  );
  ownPresetId = /(pre_\w+)/.exec(out)![1];
});
afterAll(async () => {
  await s.stop();
  await receiver.close();
});

/** The user taps the API's link: the messenger sends the manager `/start <ref>` from that user. */
async function userStarts(link: string, userId: number) {
  const ref = new URL(link).searchParams.get("start")!;
  await s.emulator.deliver(s.managerToken, { message: { message_id: 1, date: 1, chat: { id: userId, type: "private" }, from: { id: userId, is_bot: false, first_name: "Ann" }, text: `/start ${ref}` } });
  await s.platform.worker.drain();
  return s.emulator.sentMessages(s.managerToken).filter((m) => m.chatId === userId).at(-1)!;
}

describe("presets (B2)", () => {
  it("lists the shared presets and the project's own, not another project's", async () => {
    const res = await t.api("GET", "/v1/messenger/mypresets");
    expect(res.status).toBe(200);
    expect(res.body.presets).toEqual([
      { id: "pre_support", name: "Support desk", forwardUrl: null, shared: true, commands: shared.commands },
      {
        id: ownPresetId, name: "Shop bot", forwardUrl: receiver.url, shared: false,
        commands: [{ command: "start", description: "Start shopping" }, { command: "cart", description: "Show the cart" }],
        profile: { description: "The Acme shop", shortDescription: "Shop with us" },
      },
    ]);
    const other = await s.platform.newTenant("links-other");
    expect((await other.api("GET", "/v1/messenger/mypresets")).body.presets.map((p: { id: string }) => p.id)).toEqual(["pre_support"]);
  });

  it("refuses a bad preset in the console", async () => {
    const services = s.platform.services;
    const deps = { projects: services.projects, keys: services.keys, zones: services.zones, scopes: [], bots: services.messenger.bots, allowHttpLoopback: false };
    await expect(runCommand(deps, ["presets", "create", "--project", t.projectId, "--name", "x", "--forward-url", "https://10.1.1.1/x"])).rejects.toThrow(/forwardUrl must point at a public internet address/);
    await expect(runCommand(deps, ["presets", "create", "--project", t.projectId, "--name", "x", "--commands", "Bad Command=x"])).rejects.toThrow(/command "Bad Command"/);
  });
});

describe("bot-creation link (B4)", () => {
  it("refuses an unknown or another project's preset with 400, and a bad username by the contract", async () => {
    const unknown = await t.api("POST", "/v1/messenger/mybots/create-link", { suggestedUsername: "acme_helper_bot", presetId: "pre_nosuchpreset" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ path: "body.presetId", message: "is not a preset of this project or a shared one" }]);
    const other = await s.platform.newTenant("links-thief");
    const stolen = await other.api("POST", "/v1/messenger/mybots/create-link", { suggestedUsername: "acme_helper_bot", presetId: ownPresetId });
    expect(stolen.status).toBe(400);
    const badName = await t.api("POST", "/v1/messenger/mybots/create-link", { suggestedUsername: "acme_helper" });
    expect(badName.status).toBe(400);
  });

  it("runs the whole flow: start link, newbot deep link, managed_bot, token, connected, preset applied", async () => {
    const res = await t.api("POST", "/v1/messenger/mybots/create-link", { suggestedUsername: "acme_shop_bot", presetId: ownPresetId, name: "Acme Shop" });
    expect(res.status).toBe(200);
    expect(res.body.link).toMatch(/^https:\/\/t\.me\/platform_manager_bot\?start=[A-Za-z0-9_-]{42}$/);
    expect(res.body.expiresAt).toBe(new Date(clock.now() + 3600_000).toISOString());
    // The manager's hook is registered with the platform, with its own secret.
    const manager = s.emulator.bot(s.managerToken)!;
    expect(manager.webhook.url).toMatch(new RegExp(`^${s.platform.url}/hooks/messenger/m`));

    const reply = await userStarts(res.body.link, 5001);
    expect(reply.text).toContain("@acme_shop_bot");
    expect(reply.replyMarkup).toEqual({ inline_keyboard: [[{ text: "Create the bot", url: "https://t.me/newbot/platform_manager_bot/acme_shop_bot?name=Acme%20Shop" }]] });

    // The user confirms in the messenger (keeping or changing the username): the manager gets managed_bot.
    const { bot, status } = await s.emulator.createManagedBot(s.managerToken, { user: { id: 5001, first_name: "Ann" }, username: "acme_shop2_bot", name: "Acme Shop" });
    expect(status).toBe(200);
    expect(await s.platform.worker.drain()).toBe(2); // the manager update, then the preset
    const list = await t.api("GET", "/v1/messenger/mybots");
    const connected = list.body.bots.find((b: { username: string }) => b.username === "acme_shop2_bot");
    expect(connected).toEqual({ id: expect.stringMatching(/^bot_/), username: "acme_shop2_bot", webhookSet: true });
    expect(s.emulator.calls.some((c) => c.token === s.managerToken && c.method === "getManagedBotToken" && Number(c.params.user_id) === bot.id)).toBe(true);
    const stored = s.platform.db.prepare("SELECT token_enc FROM bots WHERE id = ?").get(connected.id) as { token_enc: string };
    expect(s.platform.services.secrets.open(stored.token_enc)).toBe(bot.token);
    expect(s.emulator.sentMessages(s.managerToken).at(-1)).toMatchObject({ chatId: 5001, text: "@acme_shop2_bot is connected to the project." });

    // The preset, applied on the platform.
    expect(bot.commands).toEqual([{ command: "start", description: "Start shopping" }, { command: "cart", description: "Show the cart" }]);
    expect(bot.description).toBe("The Acme shop");
    expect(bot.shortDescription).toBe("Shop with us");
    expect(bot.webhook.url).toMatch(new RegExp(`^${s.platform.url}/hooks/messenger/`));
    const st = await t.api("GET", `/v1/messenger/mybots/${connected.id}`);
    expect(st.body.webhook.forwardUrl).toBe(receiver.url);
    expect(st.body.commands).toEqual(bot.commands);

    // And its updates are forwarded.
    const seen = receiver.bodies.length;
    await s.emulator.deliver(bot.token, { update_id: 1234, message: { text: "hi" } });
    expect(await s.platform.services.backend.countJobs(FORWARD_JOB)).toBe(1);
    await s.platform.worker.drain();
    expect(receiver.bodies.slice(seen)).toEqual([JSON.stringify({ update_id: 1234, message: { text: "hi" } })]);

    // The link is used up: starting it again says so.
    const again = await userStarts(res.body.link, 5002);
    expect(again.text).toContain("no longer valid");
  });

  it("matches a bot created straight from the newbot link by its suggested username", async () => {
    const res = await t.api("POST", "/v1/messenger/mybots/create-link", { suggestedUsername: "acme_direct_bot" });
    expect(res.status).toBe(200);
    await s.emulator.createManagedBot(s.managerToken, { user: { id: 6001, first_name: "Bo" }, username: "acme_direct_bot", name: "Direct" });
    expect(await s.platform.worker.drain()).toBe(1);
    expect((await t.api("GET", "/v1/messenger/mybots")).body.bots.some((b: { username: string }) => b.username === "acme_direct_bot")).toBe(true);
  });

  it("ignores managed bots nobody asked for, and links past their expiry", async () => {
    const res = await t.api("POST", "/v1/messenger/mybots/create-link", { suggestedUsername: "acme_late_bot" });
    clock.advance(3600_000);
    const reply = await userStarts(res.body.link, 7001);
    expect(reply.text).toContain("no longer valid");
    await s.emulator.createManagedBot(s.managerToken, { user: { id: 7001, first_name: "Cy" }, username: "acme_late_bot", name: "Late" });
    await s.emulator.createManagedBot(s.managerToken, { user: { id: 7002, first_name: "Di" }, username: "stranger_bot", name: "Stranger" });
    await s.platform.worker.drain();
    const names = (await t.api("GET", "/v1/messenger/mybots")).body.bots.map((b: { username: string }) => b.username);
    expect(names).not.toContain("acme_late_bot");
    expect(names).not.toContain("stranger_bot");
  });

  it("refuses forged manager updates", async () => {
    const manager = s.emulator.bot(s.managerToken)!;
    const res = await fetch(manager.webhook.url, { method: "POST", body: JSON.stringify({ update_id: 1, managed_bot: {} }), headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "forged" } });
    expect(res.status).toBe(401);
  });

  it("signs references: a changed character or a past expiry is refused", () => {
    const key = Buffer.alloc(32, 7);
    const ref = signLinkRef(key, "bl_abcdefghjkmn", 2_000_000_000_000);
    expect(verifyLinkRef(key, ref, 1_900_000_000_000)).toBe("bl_abcdefghjkmn");
    expect(verifyLinkRef(key, ref, 2_000_000_000_000)).toBeUndefined();
    expect(verifyLinkRef(Buffer.alloc(32, 8), ref, 1_900_000_000_000)).toBeUndefined();
    const flipped = ref.slice(0, 5) + (ref[5] === "a" ? "b" : "a") + ref.slice(6);
    expect(verifyLinkRef(key, flipped, 1_900_000_000_000)).toBeUndefined();
  });
});
