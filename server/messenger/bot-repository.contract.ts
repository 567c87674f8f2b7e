// The behaviour of the messenger's storage on either backend (server/test/backends.ts): the one
// BotRepository interface, with the Backend whose transactions its tx-taking writes join.
import { beforeAll, describe, expect, it } from "vitest";
import type { Backend } from "../db/backend.ts";
import { newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { BotRepository, NewBot } from "./bot-repository.ts";

/** A repository and the Backend of the same connection. */
export interface BotStorage {
  bots: BotRepository;
  backend: Backend;
}

let botIds = 7_000_000_000;
const newBot = (projectId: string, over: Partial<NewBot> = {}): NewBot => ({ projectId, botId: ++botIds, username: `b${botIds}_bot`, name: "Helper", note: null, tokenSealed: "sealed", ...over });

export function describeBotStorage(backend: BackendName, make: (c: Connection) => BotStorage): void {
  describe(`messenger storage on ${backend}`, () => {
    const store = useStore(backend);
    let s: BotRepository;
    let b: Backend;
    beforeAll(() => {
      ({ bots: s, backend: b } = make(store.main));
    });
    /** Added outside any caller's transaction (the add takes its own). */
    const add = (bot: NewBot, cap: number) => s.add(b.direct, bot, cap);

    it("adds a bot (ids past 2^31) and reads it back by project, id and hook", async () => {
      const p = await newProject(store.main);
      const r = await add(newBot(p, { note: "support" }), 10);
      if (!r.ok) throw new Error(r.reason);
      expect(r.bot).toEqual({
        id: expect.stringMatching(/^bot_/), projectId: p, botId: botIds, username: `b${botIds}_bot`, name: "Helper", note: "support", tokenSealed: "sealed",
        hookId: null, hookSecretSealed: null, forwardSecretSealed: null, forwardUrl: null, forwardErrorAt: null, forwardError: null, createdAt: expect.any(String),
      });
      expect(await s.get(p, r.bot.id)).toEqual(r.bot);
      expect(await s.byId(r.bot.id)).toEqual(r.bot);
      expect(await s.get(await newProject(store.main), r.bot.id)).toBeUndefined();
      await s.setForwarding(r.bot.id, { hookId: `h${botIds}`, hookSecretSealed: "hs", forwardSecretSealed: "fs", forwardUrl: "https://app.example.org/tg" });
      await b.transact((tx) => s.recordForwardError(tx, r.bot.id, 1234, "HTTP 502"));
      expect(await s.byHookId(`h${botIds}`)).toMatchObject({ id: r.bot.id, hookSecretSealed: "hs", forwardSecretSealed: "fs", forwardUrl: "https://app.example.org/tg", forwardErrorAt: 1234, forwardError: "HTTP 502" });
      expect(await s.byHookId("h_none")).toBeUndefined();
      // A forward secret, once there, is kept: the first one set wins, whoever asks after.
      expect(await s.ensureForwardSecret(r.bot.id, "other")).toBe("fs");
      expect((await s.byId(r.bot.id))!.forwardSecretSealed).toBe("fs");
      expect(await s.list(p)).toHaveLength(1);
      expect(await s.pendingForwards(r.bot.id)).toBe(0);
    });

    it("a bot is one bot across projects; the cap counts per project; duplicates first", async () => {
      const p = await newProject(store.main);
      const q = await newProject(store.main);
      const bot = newBot(p);
      expect((await add(bot, 10)).ok).toBe(true);
      expect(await add({ ...bot, projectId: q }, 10)).toEqual({ ok: false, reason: "duplicate" });
      expect(await add(bot, 1)).toEqual({ ok: false, reason: "duplicate" });
      expect(await add(newBot(p), 1)).toEqual({ ok: false, reason: "limit_reached" });
      // In a caller's transaction the answers are the same, and a refusal leaves it usable.
      expect(await b.transact(async (tx) => {
        const r = await s.add(tx, { ...bot, projectId: q }, 10);
        await b.enqueue(tx, "test.after-duplicate", {});
        return r;
      }))
        .toEqual({ ok: false, reason: "duplicate" });
      expect(await b.countJobs("test.after-duplicate")).toBe(1);
      expect((await b.transact((tx) => s.add(tx, newBot(q), 1))).ok).toBe(true);
    });

    it("the same bot added on two connections at once is added once; the cap holds under a race", async () => {
      const p = await newProject(store.main);
      const other = make(await store.connect());
      const on = (i: number) => (i % 2 ? other : { bots: s, backend: b });
      // Half alone, half in their caller's transaction; the same bot in one project and in another.
      const adding = (i: number, bot: NewBot, cap: number) => {
        const x = on(i);
        return i % 4 < 2 ? x.bots.add(x.backend.direct, bot, cap) : x.backend.transact((tx) => x.bots.add(tx, bot, cap));
      };
      const bot = newBot(p);
      const q = await newProject(store.main);
      const same = await Promise.all(Array.from({ length: 8 }, (_, i) => adding(i, i % 3 ? bot : { ...bot, projectId: q }, 10)));
      expect(same.filter((r) => r.ok)).toHaveLength(1);
      for (const r of same) if (!r.ok) expect(r.reason).toBe("duplicate");
      const inP = (await s.list(p)).length; // the bot went to p or to q
      const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => adding(i, newBot(p), 4)));
      expect(raced.filter((r) => r.ok)).toHaveLength(4 - inP);
      expect(await s.list(p)).toHaveLength(4);
    });

    it("consumes a creation link in the caller's transaction, with the job enqueued there", async () => {
      const p = await newProject(store.main);
      const now = Date.UTC(2026, 0, 1);
      const linkId = `lnk_${botIds}`;
      const kind = `test.preset-${botIds}`;
      await s.createLink({ id: linkId, projectId: p, suggestedUsername: "Shop_Bot", name: "Shop", presetId: null, expiresAt: now + 60_000 });
      // The caller fails after the add: neither the bot, nor the link's use, nor the job is kept.
      await expect(b.transact(async (tx) => {
        await b.enqueue(tx, kind, await s.add(tx, newBot(p), 10, { consumeLink: linkId }));
        throw new Error("caller failed");
      })).rejects.toThrow("caller failed");
      expect(await s.getLink(linkId)).toMatchObject({ bot: null });
      expect(await s.list(p)).toEqual([]);
      expect(await b.countJobs(kind)).toBe(0);
      const r = await b.transact(async (tx) => {
        const added = await s.add(tx, newBot(p), 10, { consumeLink: linkId });
        await b.enqueue(tx, kind, {});
        return added;
      });
      if (!r.ok) throw new Error(r.reason);
      expect(await b.countJobs(kind)).toBe(1);
      expect(await s.getLink(linkId)).toEqual({ id: linkId, projectId: p, suggestedUsername: "Shop_Bot", name: "Shop", presetId: null, expiresAt: now + 60_000, telegramUserId: null, bot: r.bot.id });
    });

    it("a creation link connects one bot, also when two adds use it at once on two connections", async () => {
      const p = await newProject(store.main);
      const linkId = `lnk_once${botIds}`;
      await s.createLink({ id: linkId, projectId: p, suggestedUsername: "Once_Bot", name: "Once", presetId: null, expiresAt: Date.UTC(2030, 0, 1) });
      const other = make(await store.connect());
      const kind = `test.once-${botIds}`;
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => {
        const x = i % 2 ? other : { bots: s, backend: b };
        return x.backend.transact(async (tx) => {
          const r = await x.bots.add(tx, newBot(p), 10, { consumeLink: linkId });
          if (r.ok) await x.backend.enqueue(tx, kind, {});
          return r;
        });
      }));
      const added = results.filter((r) => r.ok);
      expect(added).toHaveLength(1);
      for (const r of results) if (!r.ok) expect(r.reason).toBe("link_used");
      expect(await s.list(p)).toEqual(added.map((r) => r.ok && r.bot));
      expect(await s.getLink(linkId)).toMatchObject({ bot: added[0].ok && added[0].bot.id });
      expect(await b.countJobs(kind)).toBe(1);
    });

    it("job outcomes (a link's user, a forward error) are written in the caller's transaction, or not at all", async () => {
      const p = await newProject(store.main);
      const now = Date.UTC(2026, 0, 1);
      const linkId = `lnk_w${botIds}`;
      await s.createLink({ id: linkId, projectId: p, suggestedUsername: "Out_Bot", name: "Out", presetId: null, expiresAt: now + 60_000 });
      const r = await add(newBot(p), 10);
      if (!r.ok) throw new Error(r.reason);
      const failing = (write: Parameters<Backend["transact"]>[0]) => b.transact(async (tx) => {
        await write(tx);
        throw new Error("outcome not recorded");
      });
      await expect(failing((tx) => s.bindLinkUser(tx, linkId, 42))).rejects.toThrow("outcome not recorded");
      await expect(failing((tx) => s.recordForwardError(tx, r.bot.id, 1, "lost"))).rejects.toThrow("outcome not recorded");
      expect(await s.getLink(linkId)).toMatchObject({ telegramUserId: null });
      expect(await s.byId(r.bot.id)).toMatchObject({ forwardErrorAt: null, forwardError: null });
      await b.transact(async (tx) => {
        await s.bindLinkUser(tx, linkId, 42);
        await s.recordForwardError(tx, r.bot.id, 2, "kept");
      });
      expect(await s.getLink(linkId)).toMatchObject({ telegramUserId: 42 });
      expect(await s.byId(r.bot.id)).toMatchObject({ forwardErrorAt: 2, forwardError: "kept" });
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
      await s.bindLinkUser(b.direct, `l1_${botIds}`, user);
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
      const r = await add(newBot(p), 10);
      if (!r.ok) throw new Error(r.reason);
      for (const bot of [r.bot.id, r.bot.id, "bot_other"]) {
        await sql(store.main, "INSERT INTO jobs (kind, payload, run_at, created_at) VALUES ('messenger.forward', ?, 0, 0)", [JSON.stringify({ bot, update: 1 })]);
      }
      expect(await s.pendingForwards(r.bot.id)).toBe(2);
    });
  });
}
