// The messenger platform (the Telegram Bot API) as the server sees it: grammy's `Api`, pointed at a
// configurable root (the public Bot API, a local Bot API server, or the test emulator), with a
// timeout, and its failures folded into three kinds the handlers map to HTTP answers:
// `unauthorized` (the token is not, or no longer, a bot's: 401/404 from getMe and friends),
// `rejected` (the platform refused a call with 4xx, with its description), and `unavailable`
// (no answer, a non-JSON answer, 5xx or 429). Tokens sit in the request path, so no message built
// here ever carries the URL: grammy's own messages leave it out, and causes are reduced to codes.
import { Api, GrammyError, HttpError } from "grammy";
import type { BotCommand, UserFromGetMe, WebhookInfo } from "grammy/types";

export const PUBLIC_BOT_API_ROOT = "https://api.telegram.org";

export type BotApiFailureKind = "unauthorized" | "rejected" | "unavailable";

export class BotApiFailure extends Error {
  readonly kind: BotApiFailureKind;
  readonly method: string;
  /** The platform's `error_code`, or 0 when no Bot API answer came. */
  readonly errorCode: number;
  constructor(kind: BotApiFailureKind, method: string, errorCode: number, message: string) {
    super(message);
    this.kind = kind;
    this.method = method;
    this.errorCode = errorCode;
  }
}

export interface BotApiOptions {
  /** Without a trailing slash; default the public Bot API. */
  apiRoot?: string;
  timeoutMs?: number;
}

export interface WebhookSetting {
  url: string;
  secretToken: string;
  dropPendingUpdates?: boolean;
}

/** The calls this server makes with one bot's token. */
export interface BotApi {
  getMe(): Promise<UserFromGetMe>;
  getWebhookInfo(): Promise<WebhookInfo>;
  getMyCommands(): Promise<BotCommand[]>;
  setWebhook(setting: WebhookSetting): Promise<void>;
  setMyCommands(commands: BotCommand[]): Promise<void>;
  setMyDescription(description: string): Promise<void>;
  setMyShortDescription(shortDescription: string): Promise<void>;
  /** Manager bots only: the token of a bot it manages (Bot API 9.6, managed bots). */
  getManagedBotToken(botUserId: number): Promise<string>;
  sendMessage(chatId: number, text: string, extra?: { reply_markup?: unknown }): Promise<void>;
}

export type BotApiFactory = (token: string) => BotApi;

export function createBotApiFactory(options: BotApiOptions = {}): BotApiFactory {
  const apiRoot = (options.apiRoot || PUBLIC_BOT_API_ROOT).replace(/\/+$/, "");
  const timeoutSeconds = Math.max(1, Math.ceil((options.timeoutMs ?? 10_000) / 1000));
  return (token) => {
    // grammy's own fetch (node-fetch, with its AbortSignal shim): its network errors carry the
    // URL, hence the token, in their message, so only their `code` is ever read (causeOf).
    const api = new Api(token, { apiRoot, timeoutSeconds });
    const call = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        throw toFailure(method, error, token);
      }
    };
    return {
      getMe: () => call("getMe", () => api.getMe()),
      getWebhookInfo: () => call("getWebhookInfo", () => api.getWebhookInfo()),
      getMyCommands: () => call("getMyCommands", () => api.getMyCommands()),
      setWebhook: (s) =>
        call("setWebhook", async () => void (await api.setWebhook(s.url, { secret_token: s.secretToken, drop_pending_updates: s.dropPendingUpdates }))),
      setMyCommands: (commands) => call("setMyCommands", async () => void (await api.setMyCommands(commands))),
      setMyDescription: (description) => call("setMyDescription", async () => void (await api.setMyDescription(description))),
      setMyShortDescription: (shortDescription) =>
        call("setMyShortDescription", async () => void (await api.setMyShortDescription(shortDescription))),
      getManagedBotToken: (botUserId) => call("getManagedBotToken", () => api.getManagedBotToken(botUserId)),
      sendMessage: (chatId, text, extra) =>
        call("sendMessage", async () => void (await api.sendMessage(chatId, text, extra as never))),
    };
  };
}

function toFailure(method: string, error: unknown, token: string): BotApiFailure {
  if (error instanceof GrammyError) {
    const description = scrub(error.description, token);
    if (error.error_code === 401 || error.error_code === 404) {
      return new BotApiFailure("unauthorized", method, error.error_code, `the messenger platform does not accept the token (${method}: ${error.error_code} ${description})`);
    }
    if (error.error_code === 429 || error.error_code >= 500) {
      return new BotApiFailure("unavailable", method, error.error_code, `the messenger platform answered ${method} with ${error.error_code}: ${description}`);
    }
    return new BotApiFailure("rejected", method, error.error_code, `the messenger platform refused ${method}: ${error.error_code} ${description}`);
  }
  if (error instanceof HttpError) {
    return new BotApiFailure("unavailable", method, 0, `the messenger platform is unreachable (${method}: ${causeOf(error.error)})`);
  }
  return new BotApiFailure("unavailable", method, 0, `the messenger platform call ${method} failed: ${scrub(String((error as Error)?.message ?? error), token)}`);
}

// A network failure reduced to what helps an operator (ECONNREFUSED, a timeout, a bad answer)
// without the request URL, which holds the token.
function causeOf(error: unknown): string {
  const e = error as { name?: string; code?: string; cause?: { code?: string; message?: string } } | undefined;
  if (e?.cause?.code) return e.cause.code;
  if (e?.code) return e.code;
  if (e?.name === "AbortError" || e?.name === "TimeoutError") return "no answer within the timeout";
  if (e?.name === "SyntaxError") return "the answer was not Bot API JSON";
  return e?.name ?? "network error";
}

function scrub(text: string, token: string): string {
  return token ? text.split(token).join("<token>") : text;
}
