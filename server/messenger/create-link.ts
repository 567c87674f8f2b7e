// Bot-creation links (seed §4, docs/decisions.md B4, B7), on the platform's managed bots (Bot API
// 9.6). The API answers a start link of the platform's manager bot (configured token) carrying a
// signed, expiring reference to the request: `https://t.me/<manager>?start=<ref>`. When the user
// starts the manager with it, the manager binds that user to the request and answers with the
// platform's creation deep link `https://t.me/newbot/<manager>/<suggestedUsername>?name=<name>`.
// Once the user confirms, the manager receives the `managed_bot` update; we read the new bot's
// token with getManagedBotToken, connect the bot to the project that asked (cap checked in the
// insert) and queue the preset. Both manager steps run as jobs: the update is acknowledged first.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Update } from "grammy/types";
import { BotApiFailure } from "../adapters/bot-api.ts";
import type { Job } from "../jobs/job-queue.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { LinkRecord } from "./bot-repository.ts";
import { hookUrl } from "./forwarding.ts";
import type { MessengerContext } from "./messenger-context.ts";
import { APPLY_PRESET_JOB } from "./presets.ts";

export const MANAGER_UPDATE_JOB = "messenger.manager-update";
const LINK_ID = /^bl_[0-9a-z]{12}$/;

/** `<12 id chars><expiry, 8 base-36 digits><22 chars of HMAC>`: 42 characters, within the 64 a start parameter allows. */
export function signLinkRef(key: Buffer, linkId: string, expiresAtMs: number): string {
  const body = `${linkId.slice(3)}${Math.floor(expiresAtMs / 1000).toString(36).padStart(8, "0")}`;
  return body + createHmac("sha256", key).update(body).digest("base64url").slice(0, 22);
}

/** The link id of a reference signed by us and not expired; undefined otherwise. */
export function verifyLinkRef(key: Buffer, ref: string, nowMs: number): string | undefined {
  if (!/^[0-9a-z]{20}[A-Za-z0-9_-]{22}$/.test(ref)) return undefined;
  const body = ref.slice(0, 20);
  const mac = Buffer.from(ref.slice(20));
  const expected = Buffer.from(createHmac("sha256", key).update(body).digest("base64url").slice(0, 22));
  if (!timingSafeEqual(mac, expected)) return undefined;
  if (parseInt(body.slice(12), 36) * 1000 <= nowMs) return undefined;
  const id = `bl_${body.slice(0, 12)}`;
  return LINK_ID.test(id) ? id : undefined;
}

export function newbotDeepLink(manager: string, link: Pick<LinkRecord, "suggestedUsername" | "name">): string {
  return `https://t.me/newbot/${manager}/${link.suggestedUsername}?name=${encodeURIComponent(link.name)}`;
}

/** The manager bot's username, with its hook registered once per process (getMe, setWebhook). */
export function ensureManager(m: MessengerContext): Promise<{ username: string }> {
  const token = m.config.messenger.managerToken;
  m.manager ??= (async () => {
    const api = m.api(token);
    const me = await api.getMe();
    if (!me.can_manage_bots) {
      throw new BotApiFailure("rejected", "getMe", 0, `the manager bot @${me.username} cannot manage bots: turn on Bot Management Mode for it in @BotFather`);
    }
    await api.setWebhook({ url: hookUrl(m, m.managerHook.id), secretToken: m.managerHook.secret });
    return { username: me.username };
  })();
  // A failure is not remembered: the next request tries again.
  m.manager.catch(() => (m.manager = undefined));
  return m.manager;
}

export function managerUpdateJob(m: MessengerContext): JobHandler {
  return async (job: Job) => {
    const update = JSON.parse((job.payload as { body: string }).body) as Update;
    const manager = m.api(m.config.messenger.managerToken);
    const now = m.clock.now();

    const text = update.message?.text;
    const from = update.message?.from;
    if (text?.startsWith("/start") && from) {
      const linkId = verifyLinkRef(m.linkKey, text.slice("/start".length).trim(), now);
      const link = linkId ? await m.bots.getLink(linkId) : undefined;
      if (!link || link.bot || link.expiresAt <= now) {
        await manager.sendMessage(from.id, "This bot-creation link is no longer valid. Ask the project for a new one.");
        return { done: true };
      }
      const { username } = await ensureManager(m);
      await manager.sendMessage(from.id, `Create @${link.suggestedUsername}: tap the button and confirm. The new bot connects to the project by itself.`, {
        reply_markup: { inline_keyboard: [[{ text: "Create the bot", url: newbotDeepLink(username, link) }]] },
      });
      return { done: true, write: async (tx) => void (await m.bots.bindLinkUser(tx, link.id, from.id)) };
    }

    const created = update.managed_bot;
    if (created) {
      const link = await m.bots.pendingLinkFor(created.user.id, created.bot.username ?? "", now);
      if (!link) return { done: true };
      const token = await manager.getManagedBotToken(created.bot.id);
      const me = await m.api(token).getMe();
      const bot = { projectId: link.projectId, botId: me.id, username: me.username, name: me.first_name, note: "created with a bot-creation link", tokenSealed: m.secrets.seal(token) };
      // The bot, the link's use and the preset job commit together, or none of them.
      const result = await m.backend.transact(async (tx) => {
        const added = await m.bots.add(tx, bot, m.config.limits.bots, { consumeLink: link.id });
        if (added.ok && link.presetId) await m.backend.enqueue(tx, APPLY_PRESET_JOB, { bot: added.bot.id, presetId: link.presetId });
        return added;
      });
      const note = result.ok
        ? `@${me.username} is connected to the project.`
        : result.reason === "limit_reached"
          ? `@${me.username} was created, but the project already has its maximum of bots.`
          : result.reason === "link_used"
            ? `@${me.username} was created, but the bot-creation link already connected another bot. Ask the project for a new one.`
            : undefined;
      if (note) await manager.sendMessage(created.user.id, note).catch(() => undefined);
      return { done: true };
    }
    return { done: true };
  };
}
