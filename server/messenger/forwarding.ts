// Forwarding of bot updates (seed §4, `POST /mybots/{id}/webhook`): the bot's webhook on the
// platform is our hook URL, unguessable per bot, registered with a `secret_token`; each update
// that arrives with that token is acknowledged at once and forwarded to the project's forwardUrl
// as a job of the one queue, the body exactly as received, retried on the schedule of webhook
// deliveries (docs/decisions.md W2, B6). Each forward is signed as webhook deliveries are
// (X-Platform-Signature and the Standard Webhooks headers) with the bot's own forward secret,
// which the project gets from POST /mybots/{id}/webhook (decision W9).
import { randomBytes } from "node:crypto";
import { signatureHeaders, signingKeys } from "../adapters/webhook-signing.ts";
import type { Job } from "../jobs/job-queue.ts";
import { newSigningSecret } from "../secrets/signing-secret.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { BotRecord } from "./bot-repository.ts";
import type { MessengerContext } from "./messenger-context.ts";

export const FORWARD_JOB = "messenger.forward";

/** Delays after attempts 1 to 6 (W2): 1 min, 5 min, 30 min, 2 h, 6 h, 12 h; then given up. */
export const FORWARD_RETRY_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];

export interface ForwardPayload {
  bot: string;
  forwardUrl: string;
  /** The update exactly as the platform sent it. */
  body: string;
}

export function hookUrl(m: MessengerContext, hookId: string): string {
  return `${m.publicUrl().replace(/\/+$/, "")}/hooks/messenger/${hookId}`;
}

/**
 * Registers our hook for the bot with the platform (the platform call first: a refusal changes
 * nothing here), then stores where its updates go. The hook id and secret are kept across calls,
 * so changing the forwardUrl never breaks updates already on their way.
 */
export async function setUpForwarding(m: MessengerContext, bot: BotRecord, forwardUrl: string): Promise<{ hookUrl: string; forwardUrl: string; secret: string }> {
  const hookId = bot.hookId ?? randomBytes(24).toString("base64url");
  const secret = bot.hookSecretSealed ? m.secrets.open(bot.hookSecretSealed) : randomBytes(32).toString("base64url");
  // Kept too, like the hook: forwards already queued still verify with what the project holds.
  const forwardSecret = bot.forwardSecretSealed ? m.secrets.open(bot.forwardSecretSealed) : newSigningSecret();
  const url = hookUrl(m, hookId);
  await m.api(m.secrets.open(bot.tokenSealed)).setWebhook({ url, secretToken: secret });
  await m.bots.setForwarding(bot.id, {
    hookId,
    hookSecretSealed: bot.hookSecretSealed ?? m.secrets.seal(secret),
    forwardSecretSealed: bot.forwardSecretSealed ?? m.secrets.seal(forwardSecret),
    forwardUrl,
  });
  return { hookUrl: url, forwardUrl, secret: forwardSecret };
}

/**
 * webhook-id of a forward: the bot and the update's own id, the same on every retry and when the
 * platform sends the update twice, so the project drops repeats by it.
 */
export function forwardId(botId: string, body: string, jobId: number): string {
  try {
    const updateId = (JSON.parse(body) as { update_id?: unknown }).update_id;
    if (Number.isSafeInteger(updateId)) return `upd_${botId}_${updateId as number}`;
  } catch {
    // the hook only queues JSON Updates; a job from elsewhere falls back to its own id
  }
  return `fwd_${jobId}`;
}

export function forwardGroup(forwardUrl: string): string {
  return `messenger.forward:${new URL(forwardUrl).origin}`;
}

export function forwardJob(m: MessengerContext): JobHandler {
  return async (job: Job) => {
    const p = job.payload as ForwardPayload;
    const bot = await m.bots.byId(p.bot);
    if (!bot) return { done: true };
    // A bot whose forwarding was set before W9 gets its secret at its first forward (its owner
    // reads it by setting forwarding again, which keeps it): no forward goes out unsigned.
    const sealed = bot.forwardSecretSealed ?? (await m.bots.ensureForwardSecret(bot.id, m.secrets.seal(newSigningSecret())));
    const signed = signatureHeaders(forwardId(bot.id, p.body, job.id), p.body, signingKeys(m.secrets.open(sealed)), m.clock.now());
    const result = await m.outbound(p.forwardUrl, {
      body: p.body,
      headers: { "content-type": "application/json", "x-platform-bot-id": bot.id, ...signed },
      development: m.config.allowHttpLoopbackWebhooks,
    });
    if (result.status >= 200 && result.status < 300) return { done: true };
    const now = m.clock.now();
    const error = `forwarding to ${p.forwardUrl} failed: ${result.error ?? `answered ${result.status}`}`;
    const delay = FORWARD_RETRY_MS[job.attempts - 1];
    if (delay === undefined) {
      return { done: true, write: async (tx) => void (await m.bots.recordForwardError(tx, bot.id, now, `${error}; given up after ${job.attempts} attempts`)) };
    }
    return { retryAt: now + delay, error, write: async (tx) => void (await m.bots.recordForwardError(tx, bot.id, now, error)) };
  };
}
