// The storage boundary of the messenger area: connected bots, project-own presets and pending
// bot-creation links, and its one implementation over the store (db/sql.ts; the contract in
// bot-repository.contract.ts). Adding a bot checks the per-project cap and the bot's uniqueness
// inside the insert's transaction, under the project's bots lock (docs/decisions.md L3), never
// count-then-insert. Writes that commit with something of another area (a job enqueued with the
// add, a job's outcome) take the caller's transaction `tx`.
import type { Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";

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
  /** The `whsec_` secret forwards to the project are signed with (decision W9), sealed; null until forwarding is set. */
  forwardSecretSealed: string | null;
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
   * Adds the bot in the caller's transaction (a savepoint of it; the store itself gets a
   * transaction of its own), cap and uniqueness checked there. `consumeLink` marks that creation link used by the bot
   * in the same transaction, so the caller's enqueue in it (the preset job) commits with both; a
   * link connects one bot only, even with two managed_bot updates for it on two instances at once.
   */
  add(tx: Sql, bot: NewBot, cap: number, options?: { consumeLink?: string }): Promise<AddBotResult>;
  /** Forwarded updates of the bot still waiting in the queue. */
  pendingForwards(id: string): Promise<number>;
  list(projectId: string): Promise<BotRecord[]>;
  get(projectId: string, id: string): Promise<BotRecord | undefined>;
  byId(id: string): Promise<BotRecord | undefined>;
  byHookId(hookId: string): Promise<BotRecord | undefined>;
  setForwarding(id: string, forwarding: { hookId: string; hookSecretSealed: string; forwardSecretSealed: string; forwardUrl: string }): Promise<void>;
  /**
   * The bot's sealed forward secret: `sealed` stored if it has none yet, else the one it has (two
   * instances forwarding its first updates at once agree on one).
   */
  ensureForwardSecret(id: string, sealed: string): Promise<string>;
  /** A forward job's outcome: written in the transaction that records it. */
  recordForwardError(tx: Sql, id: string, at: number | null, error: string | null): Promise<void>;

  listPresets(projectId: string): Promise<PresetRecord[]>;
  getPreset(projectId: string, id: string): Promise<PresetRecord | undefined>;
  createPreset(projectId: string, preset: Omit<PresetRecord, "id" | "shared">): Promise<PresetRecord>;
  deletePreset(projectId: string, id: string): Promise<boolean>;

  createLink(link: Omit<LinkRecord, "telegramUserId" | "bot">): Promise<void>;
  getLink(id: string): Promise<LinkRecord | undefined>;
  /** A manager-update job's outcome: written in the transaction that records it. */
  bindLinkUser(tx: Sql, id: string, telegramUserId: number): Promise<void>;
  /** The newest unconsumed, unexpired link bound to this user, else one suggesting this username. */
  pendingLinkFor(telegramUserId: number, username: string, now: number): Promise<LinkRecord | undefined>;
}

interface BotRow {
  id: string;
  project_id: string;
  bot_id: number;
  username: string;
  name: string;
  note: string | null;
  token_enc: string;
  hook_id: string | null;
  hook_secret_enc: string | null;
  forward_secret_enc: string | null;
  forward_url: string | null;
  forward_error_at: number | null;
  forward_error: string | null;
  created_at: string;
}

interface PresetRow {
  id: string;
  name: string;
  forward_url: string | null;
  commands: string | null;
  description: string | null;
  short_description: string | null;
}

interface LinkRow {
  id: string;
  project_id: string;
  suggested_username: string;
  name: string;
  preset_id: string | null;
  expires_at: number;
  telegram_user_id: number | null;
  bot: string | null;
}

const toBot = (r: BotRow): BotRecord => ({
  id: r.id, projectId: r.project_id, botId: r.bot_id, username: r.username, name: r.name, note: r.note, tokenSealed: r.token_enc,
  hookId: r.hook_id, hookSecretSealed: r.hook_secret_enc, forwardSecretSealed: r.forward_secret_enc ?? null, forwardUrl: r.forward_url, forwardErrorAt: r.forward_error_at,
  forwardError: r.forward_error, createdAt: r.created_at,
});

const toPreset = (r: PresetRow): PresetRecord => {
  const profile = { ...(r.description !== null ? { description: r.description } : {}), ...(r.short_description !== null ? { shortDescription: r.short_description } : {}) };
  return {
    id: r.id, name: r.name, forwardUrl: r.forward_url, shared: false,
    ...(r.commands !== null ? { commands: JSON.parse(r.commands) } : {}),
    ...(Object.keys(profile).length ? { profile } : {}),
  };
};

const toLink = (r: LinkRow): LinkRecord => ({
  id: r.id, projectId: r.project_id, suggestedUsername: r.suggested_username, name: r.name, presetId: r.preset_id,
  expiresAt: r.expires_at, telegramUserId: r.telegram_user_id, bot: r.bot,
});

const LINK_COLUMNS = "id, project_id, suggested_username, name, preset_id, expires_at, telegram_user_id, bot";

/** Bots, presets and creation links on either store. */
export class SqlBotRepository implements BotRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  add(tx: Sql, bot: NewBot, cap: number, options: { consumeLink?: string } = {}): Promise<AddBotResult> {
    return tx.transaction(async (t) => {
      await t.lock(`bots:${bot.projectId}`);
      // A bot already here (in any project) is a duplicate before it is over the cap.
      if (await t.get("SELECT 1 FROM bots WHERE bot_id = ?", [bot.botId])) return { ok: false, reason: "duplicate" };
      const { n } = (await t.get<{ n: number }>("SELECT COUNT(*) AS n FROM bots WHERE project_id = ?", [bot.projectId]))!;
      if (n >= cap) return { ok: false, reason: "limit_reached" };
      // The same bot added in another project at once is held by no lock of ours: the UNIQUE
      // constraint decides (DO NOTHING waits for the other insert, and leaves the caller's
      // PostgreSQL transaction usable where a violation would abort it).
      const row = await t.get<BotRow>(
        `INSERT INTO bots (id, project_id, bot_id, username, name, note, token_enc, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (bot_id) DO NOTHING RETURNING *`,
        [newId("bot"), bot.projectId, bot.botId, bot.username, bot.name, bot.note, bot.tokenSealed, nowIso()],
      );
      if (!row) return { ok: false, reason: "duplicate" };
      const added = toBot(row);
      // One statement decides who uses the link: a concurrent one waits on its row and then sees it used.
      if (options.consumeLink && (await t.run("UPDATE bot_links SET bot = ? WHERE id = ? AND bot IS NULL", [added.id, options.consumeLink])).changes === 0) {
        await t.run("DELETE FROM bots WHERE id = ?", [added.id]);
        return { ok: false, reason: "link_used" };
      }
      return { ok: true, bot: added };
    });
  }

  async pendingForwards(id: string): Promise<number> {
    const row = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE kind = 'messenger.forward' AND ${this.db.dialect.jsonText("payload", "$.bot")} = ?`, [id]);
    return row!.n;
  }

  async list(projectId: string): Promise<BotRecord[]> {
    return (await this.db.all<BotRow>("SELECT * FROM bots WHERE project_id = ? ORDER BY created_at, id", [projectId])).map(toBot);
  }

  async get(projectId: string, id: string): Promise<BotRecord | undefined> {
    const row = await this.db.get<BotRow>("SELECT * FROM bots WHERE project_id = ? AND id = ?", [projectId, id]);
    return row && toBot(row);
  }

  async byId(id: string): Promise<BotRecord | undefined> {
    const row = await this.db.get<BotRow>("SELECT * FROM bots WHERE id = ?", [id]);
    return row && toBot(row);
  }

  async byHookId(hookId: string): Promise<BotRecord | undefined> {
    const row = await this.db.get<BotRow>("SELECT * FROM bots WHERE hook_id = ?", [hookId]);
    return row && toBot(row);
  }

  async ensureForwardSecret(id: string, sealed: string): Promise<string> {
    await this.db.run("UPDATE bots SET forward_secret_enc = ? WHERE id = ? AND forward_secret_enc IS NULL", [sealed, id]);
    return (await this.db.get<{ forward_secret_enc: string }>("SELECT forward_secret_enc FROM bots WHERE id = ?", [id]))!.forward_secret_enc;
  }

  async setForwarding(id: string, f: { hookId: string; hookSecretSealed: string; forwardSecretSealed: string; forwardUrl: string }): Promise<void> {
    await this.db.run("UPDATE bots SET hook_id = ?, hook_secret_enc = ?, forward_secret_enc = ?, forward_url = ? WHERE id = ?", [f.hookId, f.hookSecretSealed, f.forwardSecretSealed, f.forwardUrl, id]);
  }

  async recordForwardError(tx: Sql, id: string, at: number | null, error: string | null): Promise<void> {
    await tx.run("UPDATE bots SET forward_error_at = ?, forward_error = ? WHERE id = ?", [at, error, id]);
  }

  async listPresets(projectId: string): Promise<PresetRecord[]> {
    return (await this.db.all<PresetRow>("SELECT * FROM bot_presets WHERE project_id = ? ORDER BY created_at, id", [projectId])).map(toPreset);
  }

  async getPreset(projectId: string, id: string): Promise<PresetRecord | undefined> {
    const row = await this.db.get<PresetRow>("SELECT * FROM bot_presets WHERE project_id = ? AND id = ?", [projectId, id]);
    return row && toPreset(row);
  }

  async createPreset(projectId: string, p: Omit<PresetRecord, "id" | "shared">): Promise<PresetRecord> {
    const row = await this.db.get<PresetRow>(
      "INSERT INTO bot_presets (id, project_id, name, forward_url, commands, description, short_description, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
      [newId("pre"), projectId, p.name, p.forwardUrl, p.commands ? JSON.stringify(p.commands) : null, p.profile?.description ?? null, p.profile?.shortDescription ?? null, nowIso()],
    );
    return toPreset(row!);
  }

  async deletePreset(projectId: string, id: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM bot_presets WHERE project_id = ? AND id = ?", [projectId, id])).changes > 0;
  }

  async createLink(l: Omit<LinkRecord, "telegramUserId" | "bot">): Promise<void> {
    await this.db.run("INSERT INTO bot_links (id, project_id, suggested_username, name, preset_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [l.id, l.projectId, l.suggestedUsername, l.name, l.presetId, l.expiresAt, nowIso()]);
  }

  async getLink(id: string): Promise<LinkRecord | undefined> {
    const row = await this.db.get<LinkRow>(`SELECT ${LINK_COLUMNS} FROM bot_links WHERE id = ?`, [id]);
    return row && toLink(row);
  }

  async bindLinkUser(tx: Sql, id: string, telegramUserId: number): Promise<void> {
    await tx.run("UPDATE bot_links SET telegram_user_id = ? WHERE id = ? AND bot IS NULL", [telegramUserId, id]);
  }

  async pendingLinkFor(telegramUserId: number, username: string, now: number): Promise<LinkRecord | undefined> {
    // Links of one millisecond in the order they were created (rowid, or PostgreSQL's seq).
    const newest = `ORDER BY created_at DESC, ${this.db.dialect.insertOrder} DESC LIMIT 1`;
    const bound = await this.db.get<LinkRow>(`SELECT ${LINK_COLUMNS} FROM bot_links WHERE telegram_user_id = ? AND bot IS NULL AND expires_at > ? ${newest}`, [telegramUserId, now]);
    if (bound) return toLink(bound);
    // Usernames of the messenger platform are ASCII (letters, digits, underscore): lower() folds
    // them alike on both stores.
    const suggested = await this.db.get<LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM bot_links WHERE lower(suggested_username) = lower(?) AND telegram_user_id IS NULL AND bot IS NULL AND expires_at > ? ${newest}`,
      [username, now],
    );
    return suggested && toLink(suggested);
  }
}
