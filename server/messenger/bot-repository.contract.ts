// The behaviour of the messenger's storage on either backend (server/test/backends.ts), seen
// through one asynchronous face.
import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { AddBotResult, BotRecord, LinkRecord, NewBot, PresetRecord } from "./bot-repository.ts";

export interface BotStorage {
  /** `then` runs in the add's transaction; throwing there rolls the add back. */
  add(bot: NewBot, cap: number, options?: { consumeLink?: string; then?: (bot: BotRecord) => void }): Promise<AddBotResult>;
  pendingForwards(id: string): Promise<number>;
  list(projectId: string): Promise<BotRecord[]>;
  get(projectId: string, id: string): Promise<BotRecord | undefined>;
  byId(id: string): Promise<BotRecord | undefined>;
  byHookId(hookId: string): Promise<BotRecord | undefined>;
  setForwarding(id: string, f: { hookId: string; hookSecretSealed: string; forwardUrl: string }): Promise<void>;
  recordForwardError(id: string, at: number | null, error: string | null): Promise<void>;
  listPresets(projectId: string): Promise<PresetRecord[]>;
  getPreset(projectId: string, id: string): Promise<PresetRecord | undefined>;
  createPreset(projectId: string, p: Omit<PresetRecord, "id" | "shared">): Promise<PresetRecord>;
  deletePreset(projectId: string, id: string): Promise<boolean>;
  createLink(l: Omit<LinkRecord, "telegramUserId" | "bot">): Promise<void>;
  getLink(id: string): Promise<LinkRecord | undefined>;
  bindLinkUser(id: string, telegramUserId: number): Promise<void>;
  pendingLinkFor(telegramUserId: number, username: string, now: number): Promise<LinkRecord | undefined>;
}

let botIds = 7_000_000_000;
const newBot = (projectId: string, over: Partial<NewBot> = {}): NewBot => ({ projectId, botId: ++botIds, username: `b${botIds}_bot`, name: "Helper", note: null, tokenSealed: "sealed", ...over });

export function describeBotStorage(backend: BackendName, make: (c: Connection) => BotStorage): void {
  describe(`messenger storage on ${backend}`, () => {
    const store = useStore(backend);
    let s: BotStorage;
    beforeAll(() => {
      s = make(store.main);
    });

    it("adds a bot (ids past 2^31) and reads it back by project, id and hook", async () => {
      const p = await newProject(store.main);
      const r = await s.add(newBot(p, { note: "support" }), 10);
      if (!r.ok) throw new Error(r.reason);
      expect(r.bot).toEqual({
        id: expect.stringMatching(/^bot_/), projectId: p, botId: botIds, username: `b${botIds}_bot`, name: "Helper", note: "support", tokenSealed: "sealed",
        hookId: null, hookSecretSealed: null, forwardUrl: null, forwardErrorAt: null, forwardError: null, createdAt: expect.any(String),
      });
      expect(await s.get(p, r.bot.id)).toEqual(r.bot);
      expect(await s.byId(r.bot.id)).toEqual(r.bot);
      expect(await s.get(await newProject(store.main), r.bot.id)).toBeUndefined();
      await s.setForwarding(r.bot.id, { hookId: `h${botIds}`, hookSecretSealed: "hs", forwardUrl: "https://app.example.org/tg" });
      await s.recordForwardError(r.bot.id, 1234, "HTTP 502");
      expect(await s.byHookId(`h${botIds}`)).toMatchObject({ id: r.bot.id, hookSecretSealed: "hs", forwardUrl: "https://app.example.org/tg", forwardErrorAt: 1234, forwardError: "HTTP 502" });
      expect(await s.byHookId("h_none")).toBeUndefined();
      expect(await s.list(p)).toHaveLength(1);
      expect(await s.pendingForwards(r.bot.id)).toBe(0);
    });

    it("a bot is one bot across projects; the cap counts per project; duplicates first", async () => {
      const p = await newProject(store.main);
      const q = await newProject(store.main);
      const bot = newBot(p);
      expect((await s.add(bot, 10)).ok).toBe(true);
      expect(await s.add({ ...bot, projectId: q }, 10)).toEqual({ ok: false, reason: "duplicate" });
      expect(await s.add(bot, 1)).toEqual({ ok: false, reason: "duplicate" });
      expect(await s.add(newBot(p), 1)).toEqual({ ok: false, reason: "limit_reached" });
      expect((await s.add(newBot(q), 1)).ok).toBe(true);
    });

    it("the same bot added on two connections at once is added once; the cap holds under a race", async () => {
      const p = await newProject(store.main);
      const other = make(await store.connect());
      const bot = newBot(p);
      const same = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? other : s).add(bot, 10)));
      expect(same.filter((r) => r.ok)).toHaveLength(1);
      for (const r of same) if (!r.ok) expect(r.reason).toBe("duplicate");
      const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other : s).add(newBot(p), 4)));
      expect(raced.filter((r) => r.ok)).toHaveLength(3);
      expect(await s.list(p)).toHaveLength(4);
    });

    it("consumes a creation link and runs `then` in the add's transaction", async () => {
      const p = await newProject(store.main);
      const now = Date.UTC(2026, 0, 1);
      const linkId = `lnk_${botIds}`;
      await s.createLink({ id: linkId, projectId: p, suggestedUsername: "Shop_Bot", name: "Shop", presetId: null, expiresAt: now + 60_000 });
      await expect(s.add(newBot(p), 10, { consumeLink: linkId, then: () => { throw new Error("enqueue failed"); } })).rejects.toThrow("enqueue failed");
      expect(await s.getLink(linkId)).toMatchObject({ bot: null });
      expect(await s.list(p)).toEqual([]);
      const seen: string[] = [];
      const r = await s.add(newBot(p), 10, { consumeLink: linkId, then: (b) => void seen.push(b.id) });
      if (!r.ok) throw new Error(r.reason);
      expect(seen).toEqual([r.bot.id]);
      expect(await s.getLink(linkId)).toEqual({ id: linkId, projectId: p, suggestedUsername: "Shop_Bot", name: "Shop", presetId: null, expiresAt: now + 60_000, telegramUserId: null, bot: r.bot.id });
    });

    it("finds the pending link of a user, else one suggesting the username, never a used or expired one", async () => {
      const p = await newProject(store.main);
      const now = Date.UTC(2026, 0, 1);
      const user = 6_000_000_000 + botIds;
      const link = (id: string, username: string, expiresAt = now + 60_000) => s.createLink({ id: `${id}_${botIds}`, projectId: p, suggestedUsername: username, name: id, presetId: null, expiresAt });
      await link("l1", `Mine${botIds}_bot`);
      await link("l2", `Mine${botIds}_bot`);
      await link("l3", `old${botIds}_bot`, now - 1);
      expect(await s.pendingLinkFor(user, `mine${botIds}_BOT`, now)).toMatchObject({ id: `l2_${botIds}` });
      expect(await s.pendingLinkFor(user, `old${botIds}_bot`, now)).toBeUndefined();
      await s.bindLinkUser(`l1_${botIds}`, user);
      expect(await s.pendingLinkFor(user, "someone_else_bot", now)).toMatchObject({ id: `l1_${botIds}`, telegramUserId: user });
      expect(await s.pendingLinkFor(user, "x", now + 60_000)).toBeUndefined();
    });

    it("keeps project presets with their commands and profile", async () => {
      const p = await newProject(store.main);
      const a = await s.createPreset(p, { name: "support", forwardUrl: "https://app.example.org/hook", commands: [{ command: "start", description: "Start" }], profile: { description: "Help desk" } });
      expect(a).toEqual({ id: expect.stringMatching(/^pre_/), name: "support", forwardUrl: "https://app.example.org/hook", shared: false, commands: [{ command: "start", description: "Start" }], profile: { description: "Help desk" } });
      const b = await s.createPreset(p, { name: "bare", forwardUrl: null });
      expect(b).toEqual({ id: expect.any(String), name: "bare", forwardUrl: null, shared: false });
      expect((await s.listPresets(p)).map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
      expect(await s.getPreset(await newProject(store.main), a.id)).toBeUndefined();
      expect(await s.deletePreset(p, a.id)).toBe(true);
      expect(await s.deletePreset(p, a.id)).toBe(false);
      expect(await s.listPresets(p)).toEqual([b]);
    });

    it("counts a bot's forwarded updates still waiting in the queue", async () => {
      const p = await newProject(store.main);
      const r = await s.add(newBot(p), 10);
      if (!r.ok) throw new Error(r.reason);
      for (const bot of [r.bot.id, r.bot.id, "bot_other"]) {
        await sql(store.main, "INSERT INTO jobs (kind, payload, run_at, created_at) VALUES ('messenger.forward', ?, 0, 0)", [JSON.stringify({ bot, update: 1 })]);
      }
      expect(await s.pendingForwards(r.bot.id)).toBe(2);
    });
  });
}
