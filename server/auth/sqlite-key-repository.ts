import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import { transaction } from "../db/database.ts";
import { newId, nowIso } from "../ids.ts";
import type { ApiKeyRecord, KeyRepository, NewApiKey, QuotaCounter } from "./key-repository.ts";
import { toKey, type KeyRow } from "./key-rows.ts";

export class SqliteKeyRepository implements KeyRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async create(k: NewApiKey): Promise<ApiKeyRecord> {
    const id = newId("key");
    prepare(this.db, 
        `INSERT INTO api_keys (id, project_id, name, hint, hash, scopes, rate_limit, daily_quota, monthly_quota, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, k.projectId, k.name, k.hint, k.hash, JSON.stringify(k.scopes), k.rateLimit, k.dailyQuota, k.monthlyQuota, nowIso());
    return toKey(prepare(this.db, "SELECT * FROM api_keys WHERE id = ?").get(id) as unknown as KeyRow);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM api_keys WHERE hash = ?").get(hash) as KeyRow | undefined;
    return row && toKey(row);
  }

  async list(projectId?: string): Promise<ApiKeyRecord[]> {
    const rows = projectId
      ? prepare(this.db, "SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id").all(projectId)
      : prepare(this.db, "SELECT * FROM api_keys ORDER BY created_at, id").all();
    return (rows as unknown as KeyRow[]).map(toKey);
  }

  async revoke(id: string): Promise<boolean> {
    const r = prepare(this.db, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(nowIso(), id);
    return Number(r.changes) > 0;
  }

  async consumeQuota(keyId: string, counters: QuotaCounter[]): Promise<QuotaCounter | null> {
    if (counters.length === 0) return null;
    // One IMMEDIATE transaction: other processes on the same file cannot interleave between
    // the check and the increment, so a quota is never overshot.
    return transaction(this.db, () => {
      const read = prepare(this.db, "SELECT count FROM key_usage WHERE key_id = ? AND period = ?");
      for (const c of counters) {
        const row = read.get(keyId, c.period) as { count: number } | undefined;
        if ((row?.count ?? 0) >= c.limit) return c;
      }
      const bump = prepare(this.db, 
        "INSERT INTO key_usage (key_id, period, count) VALUES (?, ?, 1) ON CONFLICT (key_id, period) DO UPDATE SET count = count + 1",
      );
      for (const c of counters) bump.run(keyId, c.period);
      return null;
    });
  }
}
