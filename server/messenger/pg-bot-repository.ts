// Messenger bots, presets and creation links on PostgreSQL (decision P1): sqlite-bot-repository.ts's
// behaviour, checked by the shared suite in bot-repository.contract.ts. Adding a bot counts the cap
// under the project's bots lock (a transaction-scoped advisory lock, as db/postgres/capped-insert.ts)
// and leaves uniqueness of the bot to the UNIQUE constraint (`ON CONFLICT DO NOTHING`, which waits
// for a concurrent insert of the same bot to commit or roll back), so the same bot added on two
// instances at once (in one project or two) is added once and the other answer is "duplicate".
// The add runs in the caller's transaction, so the creation link it consumes and the job the caller
// enqueues there commit with it.
import { rows, type Pg, type Queryable } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import { newId, nowIso } from "../ids.ts";
import type { AddBotResult, BotRecord, BotRepository, LinkRecord, NewBot, PresetRecord } from "./bot-repository.ts";
import { toBot, toPreset, toLink, type BotRow, type PresetRow, type LinkRow } from "./bot-rows.ts";

const LINK_COLUMNS = "id, project_id, suggested_username, name, preset_id, expires_at, telegram_user_id, bot";

/** SQLite's lower(): ASCII letters only. */
const asciiLower = (sql: string) => `translate(${sql}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

export class PgBotRepository implements BotRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  /** The caller's transaction client; `backend.direct` (the pool) gets a transaction of its own. */
  add(tx: Tx, bot: NewBot, cap: number, options: { consumeLink?: string } = {}): Promise<AddBotResult> {
    const c = this.client(tx);
    return c === this.db.pool ? this.db.tx((own) => this.addIn(own, bot, cap, options)) : this.addIn(c, bot, cap, options);
  }

  private async addIn(c: Queryable, bot: NewBot, cap: number, options: { consumeLink?: string }): Promise<AddBotResult> {
    await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`bots:${bot.projectId}`]);
    // A bot already here (in any project) is a duplicate before it is over the cap, as on SQLite.
    if ((await c.query("SELECT 1 FROM bots WHERE bot_id = $1", [bot.botId])).rowCount) return { ok: false, reason: "duplicate" };
    const [{ n }] = await rows<{ n: number }>(c, "SELECT COUNT(*) AS n FROM bots WHERE project_id = $1", [bot.projectId]);
    if (n >= cap) return { ok: false, reason: "limit_reached" };
    // A unique violation would abort the caller's transaction; DO NOTHING leaves it usable.
    const [row] = await rows<BotRow>(c, `INSERT INTO bots (id, project_id, bot_id, username, name, note, token_enc, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (bot_id) DO NOTHING RETURNING *`, [newId("bot"), bot.projectId, bot.botId, bot.username, bot.name, bot.note, bot.tokenSealed, nowIso()]);
    if (!row) return { ok: false, reason: "duplicate" };
    const added = toBot(row);
    // One statement decides who uses the link: a concurrent one waits on its row and then sees it used.
    if (options.consumeLink && !(await c.query("UPDATE bot_links SET bot = $1 WHERE id = $2 AND bot IS NULL", [added.id, options.consumeLink])).rowCount) {
      await c.query("DELETE FROM bots WHERE id = $1", [added.id]);
      return { ok: false, reason: "link_used" };
    }
    return { ok: true, bot: added };
  }

  private client(tx: Tx): Queryable {
    if (tx.kind !== "postgres") throw new Error("PgBotRepository: a SQLite transaction was passed");
    return tx.c;
  }

  /** Forwarded updates of the bot still waiting in the queue. */
  async pendingForwards(id: string): Promise<number> {
    const [row] = await this.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'messenger.forward' AND payload::jsonb ->> 'bot' = $1", [id]);
    return row.n;
  }

  async list(projectId: string): Promise<BotRecord[]> {
    return (await this.db.query<BotRow>("SELECT * FROM bots WHERE project_id = $1 ORDER BY created_at, id", [projectId])).map(toBot);
  }

  async get(projectId: string, id: string): Promise<BotRecord | undefined> {
    const [row] = await this.db.query<BotRow>("SELECT * FROM bots WHERE project_id = $1 AND id = $2", [projectId, id]);
    return row && toBot(row);
  }

  async byId(id: string): Promise<BotRecord | undefined> {
    const [row] = await this.db.query<BotRow>("SELECT * FROM bots WHERE id = $1", [id]);
    return row && toBot(row);
  }

  async byHookId(hookId: string): Promise<BotRecord | undefined> {
    const [row] = await this.db.query<BotRow>("SELECT * FROM bots WHERE hook_id = $1", [hookId]);
    return row && toBot(row);
  }

  async setForwarding(id: string, f: { hookId: string; hookSecretSealed: string; forwardUrl: string }): Promise<void> {
    await this.db.query("UPDATE bots SET hook_id = $1, hook_secret_enc = $2, forward_url = $3 WHERE id = $4", [f.hookId, f.hookSecretSealed, f.forwardUrl, id]);
  }

  async recordForwardError(tx: Tx, id: string, at: number | null, error: string | null): Promise<void> {
    await this.client(tx).query("UPDATE bots SET forward_error_at = $1, forward_error = $2 WHERE id = $3", [at, error, id]);
  }

  async listPresets(projectId: string): Promise<PresetRecord[]> {
    return (await this.db.query<PresetRow>("SELECT * FROM bot_presets WHERE project_id = $1 ORDER BY created_at, id", [projectId])).map(toPreset);
  }

  async getPreset(projectId: string, id: string): Promise<PresetRecord | undefined> {
    const [row] = await this.db.query<PresetRow>("SELECT * FROM bot_presets WHERE project_id = $1 AND id = $2", [projectId, id]);
    return row && toPreset(row);
  }

  async createPreset(projectId: string, p: Omit<PresetRecord, "id" | "shared">): Promise<PresetRecord> {
    const [row] = await this.db.query<PresetRow>(
      "INSERT INTO bot_presets (id, project_id, name, forward_url, commands, description, short_description, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *",
      [newId("pre"), projectId, p.name, p.forwardUrl, p.commands ? JSON.stringify(p.commands) : null, p.profile?.description ?? null, p.profile?.shortDescription ?? null, nowIso()]);
    return toPreset(row);
  }

  async deletePreset(projectId: string, id: string): Promise<boolean> {
    return ((await this.db.pool.query("DELETE FROM bot_presets WHERE project_id = $1 AND id = $2", [projectId, id])).rowCount ?? 0) > 0;
  }

  async createLink(l: Omit<LinkRecord, "telegramUserId" | "bot">): Promise<void> {
    await this.db.query("INSERT INTO bot_links (id, project_id, suggested_username, name, preset_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [l.id, l.projectId, l.suggestedUsername, l.name, l.presetId, l.expiresAt, nowIso()]);
  }

  async getLink(id: string): Promise<LinkRecord | undefined> {
    const [row] = await this.db.query<LinkRow>(`SELECT ${LINK_COLUMNS} FROM bot_links WHERE id = $1`, [id]);
    return row && toLink(row);
  }

  async bindLinkUser(tx: Tx, id: string, telegramUserId: number): Promise<void> {
    await this.client(tx).query("UPDATE bot_links SET telegram_user_id = $1 WHERE id = $2 AND bot IS NULL", [telegramUserId, id]);
  }

  /** The newest unconsumed, unexpired link bound to this user, else one suggesting this username. */
  async pendingLinkFor(telegramUserId: number, username: string, now: number): Promise<LinkRecord | undefined> {
    const [bound] = await this.db.query<LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM bot_links WHERE telegram_user_id = $1 AND bot IS NULL AND expires_at > $2 ORDER BY created_at DESC, seq DESC LIMIT 1`, [telegramUserId, now]);
    if (bound) return toLink(bound);
    const [suggested] = await this.db.query<LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM bot_links WHERE ${asciiLower("suggested_username")} = ${asciiLower("$1")} AND telegram_user_id IS NULL AND bot IS NULL AND expires_at > $2
       ORDER BY created_at DESC, seq DESC LIMIT 1`, [username, now]);
    return suggested && toLink(suggested);
  }
}
