// Messenger bots, presets and creation links in the SQLite file: the embedded default. The Tx-taking
// writes run synchronously in the caller's transaction; the reads answer settled promises.
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";
import type { Tx } from "../db/tx.ts";
import { newId, nowIso } from "../ids.ts";
import type { AddBotResult, BotRecord, BotRepository, LinkRecord, NewBot, PresetRecord } from "./bot-repository.ts";
import { toBot, toPreset, toLink, type BotRow, type PresetRow, type LinkRow } from "./bot-rows.ts";

export class SqliteBotRepository implements BotRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  add(tx: Tx, bot: NewBot, cap: number, options: { consumeLink?: string } = {}): AddBotResult {
    const db = this.own(tx);
    const run = (): AddBotResult => {
      if (prepare(db, "SELECT 1 FROM bots WHERE bot_id = ?").get(bot.botId)) return { ok: false, reason: "duplicate" };
      const { n } = prepare(db, "SELECT COUNT(*) AS n FROM bots WHERE project_id = ?").get(bot.projectId) as { n: number };
      if (n >= cap) return { ok: false, reason: "limit_reached" };
      const id = newId("bot");
      prepare(db, "INSERT INTO bots (id, project_id, bot_id, username, name, note, token_enc, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .run(id, bot.projectId, bot.botId, bot.username, bot.name, bot.note, bot.tokenSealed, nowIso());
      if (options.consumeLink && !Number(prepare(db, "UPDATE bot_links SET bot = ? WHERE id = ? AND bot IS NULL").run(id, options.consumeLink).changes)) {
        prepare(db, "DELETE FROM bots WHERE id = ?").run(id);
        return { ok: false, reason: "link_used" };
      }
      return { ok: true, bot: this.byIdNow(id)! };
    };
    // backend.transact's BEGIN IMMEDIATE holds the write lock from the count to the insert; alone,
    // the add takes its own.
    return db.isTransaction ? run() : transaction(db, run);
  }

  /** The Tx of this repository's database; another one is a wiring mistake. */
  private own(tx: Tx): DatabaseSync {
    if (tx.kind !== "sqlite" || tx.db !== this.db) throw new Error("SqliteBotRepository: a transaction of another database was passed");
    return this.db;
  }

  private byIdNow(id: string): BotRecord | undefined {
    const row = prepare(this.db, "SELECT * FROM bots WHERE id = ?").get(id);
    return row ? toBot(row as unknown as BotRow) : undefined;
  }

  async pendingForwards(id: string): Promise<number> {
    const row = prepare(this.db, "SELECT COUNT(*) AS n FROM jobs WHERE kind = 'messenger.forward' AND json_extract(payload, '$.bot') = ?").get(id) as { n: number };
    return row.n;
  }

  async list(projectId: string): Promise<BotRecord[]> {
    return (prepare(this.db, "SELECT * FROM bots WHERE project_id = ? ORDER BY created_at, id").all(projectId) as unknown as BotRow[]).map(toBot);
  }

  async get(projectId: string, id: string): Promise<BotRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM bots WHERE project_id = ? AND id = ?").get(projectId, id);
    return row ? toBot(row as unknown as BotRow) : undefined;
  }

  async byId(id: string): Promise<BotRecord | undefined> {
    return this.byIdNow(id);
  }

  async byHookId(hookId: string): Promise<BotRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM bots WHERE hook_id = ?").get(hookId);
    return row ? toBot(row as unknown as BotRow) : undefined;
  }

  async setForwarding(id: string, f: { hookId: string; hookSecretSealed: string; forwardUrl: string }): Promise<void> {
    prepare(this.db, "UPDATE bots SET hook_id = ?, hook_secret_enc = ?, forward_url = ? WHERE id = ?").run(f.hookId, f.hookSecretSealed, f.forwardUrl, id);
  }

  recordForwardError(tx: Tx, id: string, at: number | null, error: string | null): void {
    prepare(this.own(tx), "UPDATE bots SET forward_error_at = ?, forward_error = ? WHERE id = ?").run(at, error, id);
  }

  async listPresets(projectId: string): Promise<PresetRecord[]> {
    return (prepare(this.db, "SELECT * FROM bot_presets WHERE project_id = ? ORDER BY created_at, id").all(projectId) as unknown as PresetRow[]).map(toPreset);
  }

  async getPreset(projectId: string, id: string): Promise<PresetRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM bot_presets WHERE project_id = ? AND id = ?").get(projectId, id);
    return row ? toPreset(row as unknown as PresetRow) : undefined;
  }

  async createPreset(projectId: string, p: Omit<PresetRecord, "id" | "shared">): Promise<PresetRecord> {
    const id = newId("pre");
    prepare(this.db, "INSERT INTO bot_presets (id, project_id, name, forward_url, commands, description, short_description, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(id, projectId, p.name, p.forwardUrl, p.commands ? JSON.stringify(p.commands) : null, p.profile?.description ?? null, p.profile?.shortDescription ?? null, nowIso());
    return toPreset(prepare(this.db, "SELECT * FROM bot_presets WHERE id = ?").get(id) as unknown as PresetRow);
  }

  async deletePreset(projectId: string, id: string): Promise<boolean> {
    return Number(prepare(this.db, "DELETE FROM bot_presets WHERE project_id = ? AND id = ?").run(projectId, id).changes) > 0;
  }

  async createLink(l: Omit<LinkRecord, "telegramUserId" | "bot">): Promise<void> {
    prepare(this.db, "INSERT INTO bot_links (id, project_id, suggested_username, name, preset_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(l.id, l.projectId, l.suggestedUsername, l.name, l.presetId, l.expiresAt, nowIso());
  }

  async getLink(id: string): Promise<LinkRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM bot_links WHERE id = ?").get(id);
    return row ? toLink(row as unknown as LinkRow) : undefined;
  }

  bindLinkUser(tx: Tx, id: string, telegramUserId: number): void {
    prepare(this.own(tx), "UPDATE bot_links SET telegram_user_id = ? WHERE id = ? AND bot IS NULL").run(telegramUserId, id);
  }

  async pendingLinkFor(telegramUserId: number, username: string, now: number): Promise<LinkRecord | undefined> {
    const row =
      prepare(this.db, "SELECT * FROM bot_links WHERE telegram_user_id = ? AND bot IS NULL AND expires_at > ? ORDER BY created_at DESC, rowid DESC LIMIT 1").get(telegramUserId, now) ??
      prepare(this.db, "SELECT * FROM bot_links WHERE lower(suggested_username) = lower(?) AND telegram_user_id IS NULL AND bot IS NULL AND expires_at > ? ORDER BY created_at DESC, rowid DESC LIMIT 1").get(username, now);
    return row ? toLink(row as unknown as LinkRow) : undefined;
  }
}
