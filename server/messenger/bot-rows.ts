// The bot tables' rows as both repositories read them (sqlite-bot-repository.ts, pg-bot-repository.ts):
// one mapping, so the two backends cannot drift apart in what a record holds.
import type { BotRecord, LinkRecord, PresetRecord } from "./bot-repository.ts";

export interface BotRow {
  id: string;
  project_id: string;
  bot_id: number;
  username: string;
  name: string;
  note: string | null;
  token_enc: string;
  hook_id: string | null;
  hook_secret_enc: string | null;
  forward_url: string | null;
  forward_error_at: number | null;
  forward_error: string | null;
  created_at: string;
}

export interface PresetRow {
  id: string;
  name: string;
  forward_url: string | null;
  commands: string | null;
  description: string | null;
  short_description: string | null;
}

export interface LinkRow {
  id: string;
  project_id: string;
  suggested_username: string;
  name: string;
  preset_id: string | null;
  expires_at: number;
  telegram_user_id: number | null;
  bot: string | null;
}

export const toBot = (r: BotRow): BotRecord => ({
  id: r.id, projectId: r.project_id, botId: r.bot_id, username: r.username, name: r.name, note: r.note, tokenSealed: r.token_enc,
  hookId: r.hook_id, hookSecretSealed: r.hook_secret_enc, forwardUrl: r.forward_url, forwardErrorAt: r.forward_error_at,
  forwardError: r.forward_error, createdAt: r.created_at,
});

export const toPreset = (r: PresetRow): PresetRecord => {
  const profile = { ...(r.description !== null ? { description: r.description } : {}), ...(r.short_description !== null ? { shortDescription: r.short_description } : {}) };
  return {
    id: r.id, name: r.name, forwardUrl: r.forward_url, shared: false,
    ...(r.commands !== null ? { commands: JSON.parse(r.commands) } : {}),
    ...(Object.keys(profile).length ? { profile } : {}),
  };
};

export const toLink = (r: LinkRow): LinkRecord => ({
  id: r.id, projectId: r.project_id, suggestedUsername: r.suggested_username, name: r.name, presetId: r.preset_id,
  expiresAt: r.expires_at, telegramUserId: r.telegram_user_id, bot: r.bot,
});
