// Everything the messenger area needs, built once in services.ts (create-messenger.ts): the bot
// repository and the Backend (either store, decision P1), the Bot API client factory, keys derived
// from the server key (link signatures, the manager bot's hook) and the configuration. Types only:
// the jobs that take the context import this file, and it imports none of them.
import type { BotApiFactory } from "../adapters/bot-api.ts";
import type { safePost } from "../adapters/outbound-http.ts";
import type { ServerConfig } from "../server-config.ts";
import type { Backend } from "../db/backend.ts";
import type { Clock } from "../jobs/clock.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { BotRepository } from "./bot-repository.ts";

export interface MessengerContext {
  config: ServerConfig;
  bots: BotRepository;
  api: BotApiFactory;
  secrets: SecretBox;
  /** Where jobs are enqueued, in a transaction with the rows they go with. */
  backend: Backend;
  clock: Clock;
  /** The SSRF-safe outbound POST (server/adapters/outbound-http.ts); tests may wrap it. */
  outbound: typeof safePost;
  /** Base URL the messenger platform reaches this server at; set by the app once it listens. */
  publicUrl: () => string;
  /** HMAC key of bot-creation link references. */
  linkKey: Buffer;
  /** Path segment and secret_token of the manager bot's hook: derived, so stable across restarts. */
  managerHook: { id: string; secret: string };
  /** The manager bot as getMe reported it, once its hook is registered (per process). */
  manager?: Promise<{ username: string }>;
}
