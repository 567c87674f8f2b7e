// The seven messenger operations (seed §4 "Messenger bots", docs/decisions.md B1 to B7).
import type { MessengerHandlers } from "../../generated/server/handlers.ts";
import { ApiError } from "../../generated/server/errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { invalid, notFound } from "../http/errors.ts";
import { webhookUrlProblem } from "../webhooks/webhook-url.ts";
import { bulkTokens, mapLimited, MAX_BULK_TOKENS } from "./bot-token.ts";
import { connectBot, connectError } from "./connect-bot.ts";
import { ensureManager, signLinkRef } from "./create-link.ts";
import { setUpForwarding } from "./forwarding.ts";
import { newId } from "../ids.ts";
import type { MessengerContext } from "./messenger-context.ts";
import { platformFailure, storedTokenFailure } from "./platform-errors.ts";
import { findPreset, listPresets } from "./presets.ts";

const isoOfUnix = (s: number | undefined) => (s ? new Date(s * 1000).toISOString() : null);

export function messengerHandlers(m: MessengerContext): MessengerHandlers<AuthContext> {
  async function ownBot(projectId: string, id: string) {
    const bot = await m.bots.get(projectId, id);
    if (!bot) throw notFound(`bot ${id}`);
    return bot;
  }

  return {
    async addBot({ body, auth }) {
      const outcome = await connectBot(m, auth.projectId, body.token, body.note ?? null);
      if (!outcome.ok) throw connectError(outcome, m.config.limits.bots);
      const { bot } = outcome;
      return { id: bot.id, botId: bot.botId, username: bot.username, name: bot.name };
    },

    async listBots({ auth }) {
      return { bots: (await m.bots.list(auth.projectId)).map((b) => ({ id: b.id, username: b.username, webhookSet: b.forwardUrl !== null })) };
    },

    async addBotsBulk({ body, auth }) {
      const tokens = bulkTokens(body.tokens);
      if (!tokens) throw invalid("body.tokens", `has more than ${MAX_BULK_TOKENS} tokens`);
      if (!tokens.length) throw invalid("body.tokens", "has no token");
      const outcomes = await mapLimited(tokens, m.config.messenger.bulkConcurrency, (token) => connectBot(m, auth.projectId, token, null));
      const results = outcomes.map((o) => (o.ok ? { ok: true, username: o.bot.username, botId: o.bot.botId } : { ok: false, error: o.message }));
      const added = results.filter((r) => r.ok).length;
      return { total: results.length, added, failed: results.length - added, results };
    },

    async getBotStatus({ params, auth }) {
      const bot = await ownBot(auth.projectId, params.id);
      const api = m.api(m.secrets.open(bot.tokenSealed));
      let me, info, commands;
      try {
        [me, info, commands] = await Promise.all([api.getMe(), api.getWebhookInfo(), api.getMyCommands()]);
      } catch (error) {
        throw storedTokenFailure(error);
      }
      // The platform sees no errors of ours (updates are acknowledged at once); a failed forward is
      // the error the project cares about, so the newer of the two is reported.
      const platformError = info.last_error_date ? { at: info.last_error_date * 1000, message: info.last_error_message ?? null } : undefined;
      const forwardError = bot.forwardErrorAt ? { at: bot.forwardErrorAt, message: bot.forwardError } : undefined;
      const lastError = [platformError, forwardError].filter((e) => e !== undefined).sort((a, b) => b.at - a.at)[0];
      return {
        username: me.username,
        me: { id: me.id, isBot: me.is_bot, firstName: me.first_name, username: me.username, canJoinGroups: me.can_join_groups, canReadAllGroupMessages: me.can_read_all_group_messages },
        webhook: {
          url: info.url ?? "",
          forwardUrl: bot.forwardUrl,
          pendingUpdateCount: info.pending_update_count + (await m.bots.pendingForwards(bot.id)),
          lastErrorDate: lastError ? isoOfUnix(Math.floor(lastError.at / 1000)) : null,
          lastErrorMessage: lastError?.message ?? null,
        },
        commands: commands.map((c) => ({ command: c.command, description: c.description })),
      };
    },

    async setBotWebhook({ params, body, auth }) {
      const problem = webhookUrlProblem(body.forwardUrl, m.config.allowHttpLoopbackWebhooks);
      if (problem) throw invalid("body.forwardUrl", problem);
      const bot = await ownBot(auth.projectId, params.id);
      try {
        return await setUpForwarding(m, bot, body.forwardUrl);
      } catch (error) {
        throw storedTokenFailure(error);
      }
    },

    async listPresets({ auth }) {
      return { presets: await listPresets(m, auth.projectId) };
    },

    async createBotLink({ body, auth }) {
      // First: a server without a manager bot cannot make any link, whatever the body (OP6).
      if (!m.config.messenger.managerToken) {
        throw new ApiError(501, "not_implemented", "bot-creation links need the platform's manager bot: set MESSENGER_MANAGER_TOKEN (server/README.md)");
      }
      if (body.presetId && !(await findPreset(m, auth.projectId, body.presetId))) throw invalid("body.presetId", "is not a preset of this project or a shared one");
      let manager;
      try {
        manager = await ensureManager(m);
      } catch (error) {
        throw platformFailure(error);
      }
      const id = newId("bl");
      const expiresAt = m.clock.now() + m.config.messenger.linkTtlSeconds * 1000;
      const name = body.name ?? body.suggestedUsername.replace(/_?bot$/i, "");
      await m.bots.createLink({ id, projectId: auth.projectId, suggestedUsername: body.suggestedUsername, name, presetId: body.presetId ?? null, expiresAt });
      return { link: `https://t.me/${manager.username}?start=${signLinkRef(m.linkKey, id, expiresAt)}`, expiresAt: new Date(expiresAt).toISOString() };
    },
  };
}
