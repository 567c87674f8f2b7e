// The storage boundary of the messenger area: connected bots, project-own presets and pending
// bot-creation links, on either backend (decision P1: sqlite-bot-repository.ts,
// pg-bot-repository.ts, one contract in bot-repository.contract.ts). Adding a bot checks the
// per-project cap and the bot's uniqueness inside the insert's write transaction (docs/decisions.md
// L3), never count-then-insert. Writes that commit with something of another area (a job enqueued
// with the add, a job's outcome) take the caller's Tx (server/db/tx.ts) and are synchronous on
// SQLite; everything else answers a promise.
import type { Tx } from "../db/tx.ts";

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

/** `link_used`: the creation link given to consume already connected a bot; nothing was added. */
export type AddBotResult = { ok: true; bot: BotRecord } | { ok: false; reason: "duplicate" | "limit_reached" | "link_used" };

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
   * Adds the bot in the caller's transaction (backend.transact; `backend.direct` gets one of its
   * own), cap and uniqueness checked there. `consumeLink` marks that creation link used by the bot
   * in the same transaction, so the caller's enqueue in it (the preset job) commits with both; a
   * link connects one bot only, even with two managed_bot updates for it on two instances at once.
   */
  add(tx: Tx, bot: NewBot, cap: number, options?: { consumeLink?: string }): AddBotResult | Promise<AddBotResult>;
  /** Forwarded updates of the bot still waiting in the queue. */
  pendingForwards(id: string): Promise<number>;
  list(projectId: string): Promise<BotRecord[]>;
  get(projectId: string, id: string): Promise<BotRecord | undefined>;
  byId(id: string): Promise<BotRecord | undefined>;
  byHookId(hookId: string): Promise<BotRecord | undefined>;
  setForwarding(id: string, forwarding: { hookId: string; hookSecretSealed: string; forwardUrl: string }): Promise<void>;
  /** A forward job's outcome: written in the transaction that records it. */
  recordForwardError(tx: Tx, id: string, at: number | null, error: string | null): void | Promise<void>;

  listPresets(projectId: string): Promise<PresetRecord[]>;
  getPreset(projectId: string, id: string): Promise<PresetRecord | undefined>;
  createPreset(projectId: string, preset: Omit<PresetRecord, "id" | "shared">): Promise<PresetRecord>;
  deletePreset(projectId: string, id: string): Promise<boolean>;

  createLink(link: Omit<LinkRecord, "telegramUserId" | "bot">): Promise<void>;
  getLink(id: string): Promise<LinkRecord | undefined>;
  /** A manager-update job's outcome: written in the transaction that records it. */
  bindLinkUser(tx: Tx, id: string, telegramUserId: number): void | Promise<void>;
  /** The newest unconsumed, unexpired link bound to this user, else one suggesting this username. */
  pendingLinkFor(telegramUserId: number, username: string, now: number): Promise<LinkRecord | undefined>;
}
