// Presets (docs/decisions.md B2): a ready set-up of commands, forwarding webhook and profile.
// Shared presets come from the server's configuration (`messenger.presets`), the project's own are
// made in the console (`platform-admin presets create`). Applying one calls setMyCommands,
// setMyDescription, setMyShortDescription and sets up forwarding (setWebhook).
import { BotApiFailure } from "../adapters/bot-api.ts";
import type { Job } from "../jobs/job-queue.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { webhookUrlProblem } from "../webhooks/webhook-url.ts";
import type { BotRecord, PresetRecord } from "./bot-repository.ts";
import type { PresetConfig } from "./preset-config.ts";
import { setUpForwarding } from "./forwarding.ts";
import type { MessengerContext } from "./messenger-context.ts";

export type { PresetConfig } from "./preset-config.ts";

export const APPLY_PRESET_JOB = "messenger.apply-preset";

const COMMAND = /^[a-z0-9_]{1,32}$/;
const PRESET_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What is wrong with a preset, for the console and the server's start; undefined when fine. */
export function presetProblem(p: PresetConfig, allowHttpLoopback: boolean): string | undefined {
  if (!PRESET_ID.test(p.id ?? "")) return `preset id "${p.id}" must be 1 to 64 of [A-Za-z0-9_-]`;
  if (typeof p.name !== "string" || !p.name.trim() || p.name.length > 100) return `preset ${p.id}: name must be 1 to 100 characters`;
  if (p.forwardUrl) {
    const problem = webhookUrlProblem(p.forwardUrl, allowHttpLoopback);
    if (problem) return `preset ${p.id}: forwardUrl ${problem}`;
  }
  for (const c of p.commands ?? []) {
    if (!COMMAND.test(c.command) || !c.description || c.description.length > 256) return `preset ${p.id}: command "${c.command}" must be [a-z0-9_]{1,32} with a description of 1 to 256 characters`;
  }
  if ((p.commands?.length ?? 0) > 100) return `preset ${p.id}: at most 100 commands`;
  if ((p.profile?.description?.length ?? 0) > 512) return `preset ${p.id}: description is at most 512 characters`;
  if ((p.profile?.shortDescription?.length ?? 0) > 120) return `preset ${p.id}: shortDescription is at most 120 characters`;
  return undefined;
}

export function sharedPresets(m: MessengerContext): PresetRecord[] {
  return m.config.messenger.presets.map((p) => ({
    id: p.id, name: p.name, forwardUrl: p.forwardUrl ?? null, shared: true,
    ...(p.commands ? { commands: p.commands } : {}),
    ...(p.profile ? { profile: p.profile } : {}),
  }));
}

export async function listPresets(m: MessengerContext, projectId: string): Promise<PresetRecord[]> {
  return [...sharedPresets(m), ...(await m.bots.listPresets(projectId))];
}

export async function findPreset(m: MessengerContext, projectId: string, id: string): Promise<PresetRecord | undefined> {
  return sharedPresets(m).find((p) => p.id === id) ?? (await m.bots.getPreset(projectId, id));
}

export async function applyPreset(m: MessengerContext, bot: BotRecord, preset: PresetRecord): Promise<void> {
  const api = m.api(m.secrets.open(bot.tokenSealed));
  if (preset.commands) await api.setMyCommands(preset.commands);
  if (preset.profile?.description !== undefined) await api.setMyDescription(preset.profile.description);
  if (preset.profile?.shortDescription !== undefined) await api.setMyShortDescription(preset.profile.shortDescription);
  if (preset.forwardUrl) await setUpForwarding(m, bot, preset.forwardUrl);
}

/** Applies a preset to a bot connected through a creation link; retried while the platform is unreachable. */
export function applyPresetJob(m: MessengerContext): JobHandler {
  return async (job: Job) => {
    const { bot: botId, presetId } = job.payload as { bot: string; presetId: string };
    const bot = await m.bots.byId(botId);
    const preset = bot && (await findPreset(m, bot.projectId, presetId));
    if (!bot || !preset) return { done: true };
    try {
      await applyPreset(m, bot, preset);
      return { done: true };
    } catch (error) {
      // A refused token or call does not get better by retrying; an unreachable platform does.
      if (error instanceof BotApiFailure && error.kind !== "unavailable") return { done: true };
      throw error;
    }
  };
}
