// The storage boundary of API keys and their quota counters, and its one implementation over the
// store (db/sql.ts), on SQLite or PostgreSQL.
import type { Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  /** The first characters of the key, to recognise it in listings. */
  hint: string;
  scopes: string[];
  /** Requests per fixed 60-second window. */
  rateLimit: number;
  dailyQuota: number | null;
  monthlyQuota: number | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewApiKey {
  projectId: string;
  name: string;
  hash: string;
  hint: string;
  scopes: string[];
  rateLimit: number;
  dailyQuota: number | null;
  monthlyQuota: number | null;
}

/** Quota periods a request counts against, e.g. `d:2026-11-21` with its limit. */
export interface QuotaCounter {
  period: string;
  limit: number;
}

export interface KeyRepository {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  list(projectId?: string): Promise<ApiKeyRecord[]>;
  /** False when no such unrevoked key exists. */
  revoke(id: string): Promise<boolean>;
  /**
   * Counts one request against every counter, atomically, unless one is already at its limit;
   * then nothing is counted and that counter is returned.
   */
  consumeQuota(keyId: string, counters: QuotaCounter[]): Promise<QuotaCounter | null>;
}

/** Notified by every key write: a revocation on one instance (or the console) empties every instance's cache. */
export const KEYS_CHANNEL = "keys_changed";

interface KeyRow {
  id: string;
  project_id: string;
  name: string;
  hint: string;
  scopes: string;
  rate_limit: number;
  daily_quota: number | null;
  monthly_quota: number | null;
  created_at: string;
  revoked_at: string | null;
}

// Never the hash: it stays in the database.
const COLUMNS = "id, project_id, name, hint, scopes, rate_limit, daily_quota, monthly_quota, created_at, revoked_at";

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  hint: r.hint,
  scopes: JSON.parse(r.scopes),
  rateLimit: r.rate_limit,
  dailyQuota: r.daily_quota,
  monthlyQuota: r.monthly_quota,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** API keys on either store. Every write notifies KEYS_CHANNEL with its commit (CachedKeyRepository). */
export class SqlKeyRepository implements KeyRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  create(k: NewApiKey): Promise<ApiKeyRecord> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<KeyRow>(
        `INSERT INTO api_keys (id, project_id, name, hint, hash, scopes, rate_limit, daily_quota, monthly_quota, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        [newId("key"), k.projectId, k.name, k.hint, k.hash, JSON.stringify(k.scopes), k.rateLimit, k.dailyQuota, k.monthlyQuota, nowIso()],
      );
      await tx.notify(KEYS_CHANNEL);
      return toKey(row!);
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.get<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE hash = ?`, [hash]);
    return row && toKey(row);
  }

  async list(projectId?: string): Promise<ApiKeyRecord[]> {
    const rows = projectId
      ? await this.db.all<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = ? ORDER BY created_at, id`, [projectId])
      : await this.db.all<KeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
    return rows.map(toKey);
  }

  revoke(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const r = await tx.run("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [nowIso(), id]);
      if (r.changes === 0) return false;
      await tx.notify(KEYS_CHANNEL);
      return true;
    });
  }

  consumeQuota(keyId: string, counters: QuotaCounter[]): Promise<QuotaCounter | null> {
    if (counters.length === 0) return Promise.resolve(null);
    const periods = JSON.stringify(counters.map((c) => c.period));
    // The key's lock orders every check-and-count of it, on every instance and connection: the
    // read counts cannot change before the increment, so a quota is never overshot (decision L3).
    return this.db.transaction(async (tx) => {
      await tx.lock(`key_usage:${keyId}`);
      const counts = new Map(
        (await tx.all<{ period: string; count: number }>(`SELECT period, count FROM key_usage WHERE key_id = ? AND period IN (SELECT value FROM ${tx.dialect.jsonArray("?")})`, [keyId, periods]))
          .map((r) => [r.period, r.count]),
      );
      for (const c of counters) if ((counts.get(c.period) ?? 0) >= c.limit) return c;
      // WHERE true: SQLite's parser needs it between an INSERT's SELECT and its ON CONFLICT.
      await tx.run(
        `INSERT INTO key_usage (key_id, period, count) SELECT ?, value, 1 FROM ${tx.dialect.jsonArray("?")} WHERE true
         ON CONFLICT (key_id, period) DO UPDATE SET count = key_usage.count + 1`,
        [keyId, periods],
      );
      return null;
    });
  }
}
