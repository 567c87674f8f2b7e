// A Telegram Bot API emulator on loopback, written from the Bot API reference (no maintained
// emulator package exists: `telegram-test-api` has had no release since 2024). It speaks the real
// wire format: `/bot<token>/<method>` with JSON or query parameters; answers `{ ok: true, result }`
// or `{ ok: false, error_code, description }` (401 "Unauthorized" for an unknown or revoked token,
// 404 "Not Found" for an unknown method, 400 "Bad Request: ..." for bad parameters); delivers
// updates by POSTing the JSON-serialized Update to the registered webhook with the
// `X-Telegram-Bot-Api-Secret-Token` header, recording `last_error_*` and the pending count like
// getWebhookInfo reports them. Managed bots (Bot API 9.6): a manager bot (`can_manage_bots`)
// receives the `managed_bot` update when a user creates a bot through it, and reads the new bot's
// token with getManagedBotToken. Used by the messenger tests, by `conformance:reference`, and by users
// trying the messenger area offline (`npm run messenger:emulator`, emulator-cli.ts).
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface EmulatedBot {
  token: string;
  id: number;
  username: string;
  firstName: string;
  canJoinGroups: boolean;
  canReadAllGroupMessages: boolean;
  canManageBots: boolean;
  webhook: { url: string; secretToken?: string; pending: number; lastErrorDate?: number; lastErrorMessage?: string };
  commands: { command: string; description: string }[];
  description: string;
  shortDescription: string;
  /** The manager bot's id, for managed bots. */
  managerId?: number;
  revoked: boolean;
}

export interface SentMessage {
  chatId: number;
  text: string;
  replyMarkup?: unknown;
}

export interface EmulatorOptions {
  /**
   * Any well-formed token is a bot (created on first use, id from the token's prefix): for the
   * conformance suite, which generates tokens from the contract's pattern.
   */
  acceptAnyToken?: boolean;
  /** Loopback port to listen on; 0 (the default) lets the kernel choose. */
  port?: number;
}

export interface BotApiEmulator {
  /** The apiRoot to configure (`http://127.0.0.1:<port>`). */
  url: string;
  addBot(bot: Partial<Omit<EmulatedBot, "webhook" | "revoked">> & { username: string }): EmulatedBot;
  bot(tokenOrUsername: string): EmulatedBot | undefined;
  revoke(token: string): void;
  /** POSTs an update to the bot's webhook as the platform does; answers the receiver's status (0: no answer). */
  deliver(token: string, update: Record<string, unknown>): Promise<{ status: number; updateId: number }>;
  /** A user creates a bot through the manager's deep link: the bot exists, the manager gets `managed_bot`. */
  createManagedBot(managerToken: string, input: { user: { id: number; first_name: string }; username: string; name: string }): Promise<{ bot: EmulatedBot; status: number }>;
  sentMessages(token: string): SentMessage[];
  /** Calls received, by method name (tests check what a preset applied). */
  calls: { token: string; method: string; params: Record<string, unknown> }[];
  close(): Promise<void>;
}

const TOKEN = /^(\d{1,20}):[A-Za-z0-9_-]{20,100}$/;
const SECRET = /^[A-Za-z0-9_-]{1,256}$/;
const COMMAND = /^[a-z0-9_]{1,32}$/;

export function newBotToken(id: number): string {
  return `${id}:AA${randomBytes(24).toString("base64url").slice(0, 33)}`;
}

export async function startBotApiEmulator(options: EmulatorOptions = {}): Promise<BotApiEmulator> {
  const byToken = new Map<string, EmulatedBot>();
  const sent = new Map<string, SentMessage[]>();
  const calls: BotApiEmulator["calls"] = [];
  let nextId = 7_000_000_001;
  let updateId = 100_000;

  function addBot(input: Partial<Omit<EmulatedBot, "webhook" | "revoked">> & { username: string }): EmulatedBot {
    const id = input.id ?? nextId++;
    const bot: EmulatedBot = {
      token: input.token ?? newBotToken(id),
      id,
      username: input.username,
      firstName: input.firstName ?? input.username,
      canJoinGroups: input.canJoinGroups ?? true,
      canReadAllGroupMessages: input.canReadAllGroupMessages ?? false,
      canManageBots: input.canManageBots ?? false,
      webhook: { url: "", pending: 0 },
      commands: input.commands ?? [],
      description: input.description ?? "",
      shortDescription: input.shortDescription ?? "",
      managerId: input.managerId,
      revoked: false,
    };
    byToken.set(bot.token, bot);
    return bot;
  }

  function lookup(token: string): EmulatedBot | undefined {
    const bot = byToken.get(token);
    if (bot) return bot.revoked ? undefined : bot;
    const m = TOKEN.exec(token);
    if (!options.acceptAnyToken || !m) return undefined;
    // Token ids beyond 2^53 cannot travel as JSON numbers; fold them into a safe range.
    const digits = m[1];
    const id = Number(digits) <= Number.MAX_SAFE_INTEGER ? Number(digits) : 1_000_000_000 + (Number(BigInt(digits) % 1_000_000_000n));
    return addBot({ token, id, username: `bot${id}_bot`.slice(0, 32), firstName: `Bot ${id}` });
  }

  async function deliver(token: string, update: Record<string, unknown>): Promise<{ status: number; updateId: number }> {
    const bot = byToken.get(token);
    if (!bot) throw new Error("emulator: no such bot");
    const id = (update.update_id as number | undefined) ?? ++updateId;
    const body = JSON.stringify({ update_id: id, ...update });
    if (!bot.webhook.url) {
      bot.webhook.pending++;
      return { status: 0, updateId: id };
    }
    let status = 0;
    try {
      const res = await fetch(bot.webhook.url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...(bot.webhook.secretToken ? { "x-telegram-bot-api-secret-token": bot.webhook.secretToken } : {}) },
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      status = res.status;
      if (!res.ok) {
        bot.webhook.pending++;
        bot.webhook.lastErrorDate = Math.floor(Date.now() / 1000);
        bot.webhook.lastErrorMessage = `Wrong response from the webhook: ${res.status} ${res.statusText}`;
      }
    } catch {
      bot.webhook.pending++;
      bot.webhook.lastErrorDate = Math.floor(Date.now() / 1000);
      bot.webhook.lastErrorMessage = "Connection refused";
    }
    return { status, updateId: id };
  }

  type Answer = { status: number; body: unknown };
  const ok = (result: unknown): Answer => ({ status: 200, body: { ok: true, result } });
  const fail = (code: number, description: string): Answer => ({ status: code, body: { ok: false, error_code: code, description } });
  const badRequest = (what: string) => fail(400, `Bad Request: ${what}`);
  const text = (v: unknown) => (typeof v === "string" ? v : v === undefined ? undefined : String(v));

  function run(bot: EmulatedBot, method: string, p: Record<string, unknown>): Answer {
    switch (method) {
      case "getMe":
        return ok({
          id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username,
          can_join_groups: bot.canJoinGroups, can_read_all_group_messages: bot.canReadAllGroupMessages,
          supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false,
          has_topics_enabled: false, allows_users_to_create_topics: false, can_manage_bots: bot.canManageBots,
          supports_join_request_queries: false,
        });
      case "getWebhookInfo": {
        const w = bot.webhook;
        return ok({
          url: w.url, has_custom_certificate: false, pending_update_count: w.pending,
          ...(w.lastErrorDate ? { last_error_date: w.lastErrorDate, last_error_message: w.lastErrorMessage } : {}),
          ...(w.url ? { max_connections: 40 } : {}),
        });
      }
      case "setWebhook": {
        const url = text(p.url) ?? "";
        const secret = text(p.secret_token);
        if (url) {
          try {
            const u = new URL(url);
            if (u.protocol !== "https:" && u.protocol !== "http:") return badRequest("bad webhook: An HTTPS URL must be provided for webhook");
          } catch {
            return badRequest("bad webhook: Failed to resolve host: Name or service not known");
          }
        }
        if (secret !== undefined && !SECRET.test(secret)) return badRequest("secret token contains unallowed characters");
        bot.webhook.url = url;
        bot.webhook.secretToken = secret;
        if (p.drop_pending_updates === true || p.drop_pending_updates === "true") bot.webhook.pending = 0;
        return ok(true);
      }
      case "deleteWebhook":
        bot.webhook = { url: "", pending: p.drop_pending_updates ? 0 : bot.webhook.pending };
        return ok(true);
      case "getMyCommands":
        return ok(bot.commands);
      case "setMyCommands": {
        const commands = typeof p.commands === "string" ? JSON.parse(p.commands) : p.commands;
        if (!Array.isArray(commands) || commands.length > 100) return badRequest("commands must be an array of at most 100 BotCommand");
        for (const c of commands) {
          if (!c || !COMMAND.test(String(c.command))) return badRequest("BOT_COMMAND_INVALID");
          if (typeof c.description !== "string" || c.description.length < 1 || c.description.length > 256) return badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
        }
        bot.commands = commands.map((c: { command: string; description: string }) => ({ command: c.command, description: c.description }));
        return ok(true);
      }
      case "setMyDescription": {
        const d = text(p.description) ?? "";
        if (d.length > 512) return badRequest("description is too long");
        bot.description = d;
        return ok(true);
      }
      case "getMyDescription":
        return ok({ description: bot.description });
      case "setMyShortDescription": {
        const d = text(p.short_description) ?? "";
        if (d.length > 120) return badRequest("short description is too long");
        bot.shortDescription = d;
        return ok(true);
      }
      case "getMyShortDescription":
        return ok({ short_description: bot.shortDescription });
      case "getManagedBotToken": {
        const managed = [...byToken.values()].find((b) => b.id === Number(p.user_id) && !b.revoked);
        if (!bot.canManageBots) return badRequest("the bot can't manage other bots");
        if (!managed || managed.managerId !== bot.id) return badRequest("bot not found");
        return ok(managed.token);
      }
      case "sendMessage": {
        const chatId = Number(p.chat_id);
        const t = text(p.text);
        if (!t) return badRequest("message text is empty");
        const list = sent.get(bot.token) ?? [];
        list.push({ chatId, text: t, replyMarkup: typeof p.reply_markup === "string" ? JSON.parse(p.reply_markup) : p.reply_markup });
        sent.set(bot.token, list);
        return ok({ message_id: list.length, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: "private" }, text: t });
      }
      default:
        return fail(404, "Not Found");
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://emulator");
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    let answer: Answer;
    if (!m) answer = fail(404, "Not Found");
    else {
      const token = decodeURIComponent(m[1]);
      const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
      const raw = Buffer.concat(chunks).toString("utf8");
      const type = req.headers["content-type"] ?? "";
      try {
        if (raw && type.includes("json")) Object.assign(params, JSON.parse(raw));
        else if (raw && type.includes("x-www-form-urlencoded")) Object.assign(params, Object.fromEntries(new URLSearchParams(raw)));
        const bot = lookup(token);
        calls.push({ token, method: m[2], params });
        answer = bot ? run(bot, m[2], params) : fail(401, "Unauthorized");
      } catch {
        answer = badRequest("can't parse request JSON object");
      }
    }
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
  }

  const server: Server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    addBot,
    bot: (key) => byToken.get(key) ?? [...byToken.values()].find((b) => b.username === key),
    revoke(token) {
      const bot = byToken.get(token);
      if (bot) bot.revoked = true;
    },
    deliver,
    async createManagedBot(managerToken, input) {
      const manager = byToken.get(managerToken);
      if (!manager?.canManageBots) throw new Error("emulator: not a manager bot");
      const bot = addBot({ username: input.username, firstName: input.name, managerId: manager.id });
      const { status } = await deliver(managerToken, {
        managed_bot: { user: { id: input.user.id, is_bot: false, first_name: input.user.first_name }, bot: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username } },
      });
      return { bot, status };
    },
    sentMessages: (token) => sent.get(token) ?? [],
    calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
