// Builds the messenger context once (services.ts) and names the job handlers the area registers on
// the one queue. Apart from messenger-context.ts, which the jobs import for its type alone.
import { createHmac } from "node:crypto";
import { createBotApiFactory } from "../adapters/bot-api.ts";
import { safePost } from "../adapters/outbound-http.ts";
import type { ServerConfig } from "../config.ts";
import type { Backend } from "../db/backend.ts";
import type { Clock } from "../jobs/clock.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { BotRepository } from "./bot-repository.ts";
import { managerUpdateJob, MANAGER_UPDATE_JOB } from "./create-link.ts";
import { forwardJob, FORWARD_JOB } from "./forwarding.ts";
import type { MessengerContext } from "./messenger-context.ts";
import { applyPresetJob, APPLY_PRESET_JOB, presetProblem } from "./presets.ts";

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
