// Everything the messenger area needs, built once in services.ts: the bot repository and the
// Backend (either store, decision P1), the Bot API client factory, keys derived from the server key
// (link signatures, the manager bot's hook), the configuration, and the job handlers it registers
// on the one queue.
import { createHmac } from "node:crypto";
import { createBotApiFactory, type BotApiFactory } from "../adapters/bot-api.ts";
import { safePost } from "../adapters/outbound-http.ts";
import type { ServerConfig } from "../config.ts";
import type { Backend } from "../db/backend.ts";
import type { Clock } from "../jobs/clock.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { BotRepository } from "./bot-repository.ts";
import { managerUpdateJob, MANAGER_UPDATE_JOB } from "./create-link.ts";
import { forwardJob, FORWARD_JOB } from "./forwarding.ts";
import { applyPresetJob, APPLY_PRESET_JOB, presetProblem } from "./presets.ts";

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

export function createMessenger(config: ServerConfig, bots: BotRepository, backend: Backend, serverKey: Buffer, deps: { secrets: SecretBox; clock: Clock }): MessengerContext {
  // A broken shared preset stops the start, like any other bad configuration.
  for (const preset of config.messenger.presets) {
    const problem = presetProblem(preset, config.allowHttpLoopbackWebhooks);
    if (problem) throw new Error(`messenger.presets: ${problem}`);
  }
  const derive = (label: string) => createHmac("sha256", serverKey).update(`messenger:${label}`).digest();
  return {
    config,
    bots,
    api: createBotApiFactory({ apiRoot: config.messenger.apiRoot, timeoutMs: config.messenger.timeoutMs }),
    secrets: deps.secrets,
    backend,
    clock: deps.clock,
    outbound: safePost,
    publicUrl: () => config.publicUrl,
    linkKey: derive("links"),
    managerHook: { id: `m${derive("manager-hook").toString("base64url").slice(0, 32)}`, secret: derive("manager-secret").toString("base64url") },
  };
}

export function messengerJobHandlers(m: MessengerContext): Record<string, JobHandler> {
  return {
    [FORWARD_JOB]: forwardJob(m),
    [MANAGER_UPDATE_JOB]: managerUpdateJob(m),
    [APPLY_PRESET_JOB]: applyPresetJob(m),
  };
}
