// The storage boundary of the messenger area: connected bots, project-own presets and pending
// bot-creation links. Adding a bot checks the per-project cap and the bot's uniqueness inside the
// insert's own write transaction (docs/decisions.md L3), never count-then-insert.

export interface BotRecord {
  id: string;
  projectId: string;
  /** The bot's numeric id on the messenger platform. */
  botId: number;
  username: string;
  name: string;
  note: string | null;
  /** The bot token, sealed with the server key (SecretBox). */
  tokenSealed: string;
  /** Path segment of the bot's hook URL on this server; null until forwarding is set. */
  hookId: string | null;
  /** `secret_token` registered with setWebhook, sealed. */
  hookSecretSealed: string | null;
  forwardUrl: string | null;
  forwardErrorAt: number | null;
  forwardError: string | null;
  createdAt: string;
}

export type NewBot = Pick<BotRecord, "projectId" | "botId" | "username" | "name" | "note" | "tokenSealed">;

export type AddBotResult = { ok: true; bot: BotRecord } | { ok: false; reason: "duplicate" | "limit_reached" };

export interface BotCommandRecord {
  command: string;
  description: string;
}

export interface PresetRecord {
  id: string;
  name: string;
  forwardUrl: string | null;
  shared: boolean;
  commands?: BotCommandRecord[];
  profile?: { description?: string; shortDescription?: string };
}

export interface LinkRecord {
  id: string;
  projectId: string;
  suggestedUsername: string;
  name: string;
  presetId: string | null;
  expiresAt: number;
  telegramUserId: number | null;
  bot: string | null;
}

export interface BotRepository {
  /**
   * Cap and uniqueness checked in the insert's transaction. `consumeLink` marks a creation link
   * used and `then` runs (e.g. enqueues a job) in that same transaction.
   */
  add(bot: NewBot, cap: number, options?: { consumeLink?: string; then?: (bot: BotRecord) => unknown }): AddBotResult;
  /** Forwarded updates of the bot still waiting in the queue. */
  pendingForwards(id: string): number;
  list(projectId: string): BotRecord[];
  get(projectId: string, id: string): BotRecord | undefined;
  byId(id: string): BotRecord | undefined;
  byHookId(hookId: string): BotRecord | undefined;
  setForwarding(id: string, forwarding: { hookId: string; hookSecretSealed: string; forwardUrl: string }): void;
  recordForwardError(id: string, at: number | null, error: string | null): void;

  listPresets(projectId: string): PresetRecord[];
  getPreset(projectId: string, id: string): PresetRecord | undefined;
  createPreset(projectId: string, preset: Omit<PresetRecord, "id" | "shared">): PresetRecord;
  deletePreset(projectId: string, id: string): boolean;

  createLink(link: Omit<LinkRecord, "telegramUserId" | "bot">): void;
  getLink(id: string): LinkRecord | undefined;
  bindLinkUser(id: string, telegramUserId: number): void;
  /** The newest unconsumed, unexpired link bound to this user, else one suggesting this username. */
  pendingLinkFor(telegramUserId: number, username: string, now: number): LinkRecord | undefined;
}
