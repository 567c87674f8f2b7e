// Connect, duplicate, another project, bad tokens, the platform unreachable, bulk, the cap under
// concurrency, list and live status: real HTTP to the platform, the platform to the Bot API emulator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaults } from "../config.ts";
import { startTestPlatform, type Tenant } from "../test/harness.ts";
import { newBotToken } from "./test/bot-api-emulator.ts";
import { startMessenger, type MessengerSetup } from "./test/messenger-fixture.ts";

let s: MessengerSetup;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  s = await startMessenger({ limits: { bots: 5 } });
  a = await s.platform.newTenant("bots-a");
  b = await s.platform.newTenant("bots-b");
});
afterAll(() => s.stop());

const rows = () => s.platform.db.prepare("SELECT COUNT(*) AS n FROM bots").get() as { n: number };

describe("connecting a bot", () => {
  it("checks the token with getMe, stores it sealed and never returns it", async () => {
    const bot = s.emulator.addBot({ username: "acme_support_bot", firstName: "Acme Support" });
    const res = await a.api("POST", "/v1/messenger/mybots", { token: bot.token, note: "support" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^bot_/), botId: bot.id, username: "acme_support_bot", name: "Acme Support" });
    expect(JSON.stringify(res.body)).not.toContain(bot.token.split(":")[1]);
    const stored = s.platform.db.prepare("SELECT token_enc FROM bots WHERE id = ?").get(res.body.id) as { token_enc: string };
    expect(stored.token_enc).not.toContain(bot.token.split(":")[1]);
    expect(s.platform.services.secrets.open(stored.token_enc)).toBe(bot.token);

    const list = await a.api("GET", "/v1/messenger/mybots");
    expect(list.body).toEqual({ bots: [{ id: res.body.id, username: "acme_support_bot", webhookSet: false }] });
    expect(JSON.stringify(list.body)).not.toContain(bot.token.split(":")[1]);
  });

  it("refuses the same bot twice, here and in another project, with the same answer (E2)", async () => {
    const bot = s.emulator.addBot({ username: "twice_bot" });
    expect((await a.api("POST", "/v1/messenger/mybots", { token: bot.token })).status).toBe(200);
    const before = rows().n;
    const again = await a.api("POST", "/v1/messenger/mybots", { token: bot.token });
    const elsewhere = await b.api("POST", "/v1/messenger/mybots", { token: bot.token });
    expect(again.status).toBe(409);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body).toEqual(again.body);
    expect(again.body).toEqual({ error: "this bot is already connected", code: "conflict" });
    expect(rows().n).toBe(before);
    expect((await b.api("GET", "/v1/messenger/mybots")).body).toEqual({ bots: [] });
  });

  it.each([
    ["malformed", "12345:short"],
    ["no colon", "1234567890AAAAAAAAAAAAAAAAAAAAAAAA"],
  ])("refuses a %s token with 400 naming body.token, without calling the platform", async (_name, token) => {
    const calls = s.emulator.calls.length;
    const res = await a.api("POST", "/v1/messenger/mybots", { token });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain("body.token");
    expect(s.emulator.calls.length).toBe(calls);
  });

  it("refuses a revoked token (the platform answers 401) with 400 naming body.token, nothing stored", async () => {
    const bot = s.emulator.addBot({ username: "revoked_bot" });
    s.emulator.revoke(bot.token);
    const before = rows().n;
    const res = await a.api("POST", "/v1/messenger/mybots", { token: bot.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.details).toEqual([{ path: "body.token", message: expect.stringContaining("not accepted by the messenger platform") }]);
    expect(res.body.error).not.toContain(bot.token.split(":")[1]);
    expect(rows().n).toBe(before);
  });

  it("answers 502 upstream_error with the cause when the platform is unreachable, and stores nothing", async () => {
    const closed = await startTestPlatform({ messenger: { ...defaults.messenger, apiRoot: "http://127.0.0.1:1" } });
    try {
      const t = await closed.newTenant("unreachable");
      const token = newBotToken(7012345678);
      const res = await t.api("POST", "/v1/messenger/mybots", { token });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ code: "upstream_error", error: expect.stringContaining("unreachable") });
      expect(res.body.error).toContain("ECONNREFUSED");
      expect(res.body.error).not.toContain(token.split(":")[1]);
      expect((closed.db.prepare("SELECT COUNT(*) AS n FROM bots").get() as { n: number }).n).toBe(0);
    } finally {
      await closed.stop();
    }
  });
});

describe("bulk", () => {
  it("checks each token and answers per token, never all or nothing; text with one token per line", async () => {
    const t = await s.platform.newTenant("bulk-mix");
    const good1 = s.emulator.addBot({ username: "bulk_one_bot" });
    const good2 = s.emulator.addBot({ username: "bulk_two_bot" });
    const revoked = s.emulator.addBot({ username: "bulk_revoked_bot" });
    s.emulator.revoke(revoked.token);
    const unknown = newBotToken(7099999999);
    const text = `${good1.token}\n\n  ${revoked.token}\r\nnot-a-token\n${unknown}\n${good2.token}\n${good1.token}\n`;
    const res = await t.api("POST", "/v1/messenger/mybots/bulk", { tokens: text });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(6);
    expect(res.body.added).toBe(2);
    expect(res.body.failed).toBe(4);
    const r = res.body.results;
    expect(r[0]).toEqual({ ok: true, username: "bulk_one_bot", botId: good1.id });
    expect(r[1]).toEqual({ ok: false, error: expect.stringContaining("not accepted") });
    expect(r[2]).toEqual({ ok: false, error: expect.stringContaining("not a bot token") });
    expect(r[3]).toEqual({ ok: false, error: expect.stringContaining("not accepted") });
    expect(r[4]).toEqual({ ok: true, username: "bulk_two_bot", botId: good2.id });
    expect(r[5]).toEqual({ ok: false, error: "this bot is already connected" });
    expect(JSON.stringify(res.body)).not.toContain(good1.token.split(":")[1]);
    expect((await t.api("GET", "/v1/messenger/mybots")).body.bots.map((x: { username: string }) => x.username).sort()).toEqual(["bulk_one_bot", "bulk_two_bot"]);
  });

  it("refuses 101 tokens, as an array or as text, with 400 and stores nothing", async () => {
    const t = await s.platform.newTenant("bulk-101");
    const tokens = Array.from({ length: 101 }, (_, i) => newBotToken(7100000000 + i));
    const before = rows().n;
    const asArray = await t.api("POST", "/v1/messenger/mybots/bulk", { tokens });
    const asText = await t.api("POST", "/v1/messenger/mybots/bulk", { tokens: tokens.join("\n") });
    expect(asArray.status).toBe(400);
    expect(asText.status).toBe(400);
    expect(asText.body.details).toEqual([{ path: "body.tokens", message: "has more than 100 tokens" }]);
    expect(rows().n).toBe(before);
  });
});

describe("the per-project cap (L3)", () => {
  it("admits exactly the cap under concurrent requests, the rest 409 limit_reached", async () => {
    const t = await s.platform.newTenant("cap");
    const bots = Array.from({ length: 12 }, (_, i) => s.emulator.addBot({ username: `cap_${i}_bot` }));
    const answers = await Promise.all(bots.map((bot) => t.api("POST", "/v1/messenger/mybots", { token: bot.token })));
    const statuses = answers.map((x) => x.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(5);
    expect(statuses.filter((x) => x === 409)).toHaveLength(7);
    expect(answers.filter((x) => x.status === 409).every((x) => x.body.code === "limit_reached")).toBe(true);
    expect((await t.api("GET", "/v1/messenger/mybots")).body.bots).toHaveLength(5);
    // Bulk meets the same cap, per token.
    const more = s.emulator.addBot({ username: "cap_more_bot" });
    const bulk = await t.api("POST", "/v1/messenger/mybots/bulk", { tokens: [more.token] });
    expect(bulk.body.results[0]).toEqual({ ok: false, error: expect.stringContaining("maximum of 5 bots") });
  });
});

describe("live status (B1)", () => {
  it("reads getMe, getWebhookInfo and getMyCommands now", async () => {
    const bot = s.emulator.addBot({ username: "status_bot", firstName: "Status", canJoinGroups: false, canReadAllGroupMessages: true, commands: [{ command: "start", description: "Start" }] });
    const { body } = await a.api("POST", "/v1/messenger/mybots", { token: bot.token });
    const first = await a.api("GET", `/v1/messenger/mybots/${body.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      username: "status_bot",
      me: { id: bot.id, isBot: true, firstName: "Status", username: "status_bot", canJoinGroups: false, canReadAllGroupMessages: true },
      webhook: { url: "", forwardUrl: null, pendingUpdateCount: 0, lastErrorDate: null, lastErrorMessage: null },
      commands: [{ command: "start", description: "Start" }],
    });
    // Changed on the platform: the next read shows it.
    bot.commands = [{ command: "help", description: "Help" }];
    bot.firstName = "Renamed";
    const second = await a.api("GET", `/v1/messenger/mybots/${body.id}`);
    expect(second.body.commands).toEqual([{ command: "help", description: "Help" }]);
    expect(second.body.me.firstName).toBe("Renamed");
  });

  it("is 404 for another project's bot and 409 when the stored token was revoked since", async () => {
    const bot = s.emulator.addBot({ username: "later_revoked_bot" });
    const { body } = await a.api("POST", "/v1/messenger/mybots", { token: bot.token });
    const other = await b.api("GET", `/v1/messenger/mybots/${body.id}`);
    const missing = await a.api("GET", "/v1/messenger/mybots/bot_doesnotexist");
    expect(other.status).toBe(404);
    expect(other.body.error).toBe(`bot ${body.id} not found`);
    expect(missing.status).toBe(404);
    s.emulator.revoke(bot.token);
    const revoked = await a.api("GET", `/v1/messenger/mybots/${body.id}`);
    expect(revoked.status).toBe(409);
    expect(revoked.body.error).toContain("revoked");
  });
});
