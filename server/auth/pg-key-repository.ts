// API keys and their quota counters on PostgreSQL (decision P1). Every write notifies KEYS_CHANNEL
// in its transaction, so each instance's CachedKeyRepository drops its cache on commit (P3).
import { notify, rows, type Pg } from "../db/postgres/pg.ts";
import { newId, nowIso } from "../ids.ts";
import type { ApiKeyRecord, KeyRepository, NewApiKey, QuotaCounter } from "./key-repository.ts";
import { toKey, type KeyRow } from "./key-rows.ts";

/** NOTIFY channel of key changes: a revocation on one instance empties every instance's cache. */
export const KEYS_CHANNEL = "keys_changed";

const COLUMNS = "id, project_id, name, hint, scopes, rate_limit, daily_quota, monthly_quota, created_at, revoked_at";

export class PgKeyRepository implements KeyRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  create(k: NewApiKey): Promise<ApiKeyRecord> {
    return this.db.tx(async (c) => {
      const [row] = await rows<KeyRow>(c,
        `INSERT INTO api_keys (id, project_id, name, hint, hash, scopes, rate_limit, daily_quota, monthly_quota, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
        [newId("key"), k.projectId, k.name, k.hint, k.hash, JSON.stringify(k.scopes), k.rateLimit, k.dailyQuota, k.monthlyQuota, nowIso()],
      );
      await notify(c, KEYS_CHANNEL);
      return toKey(row);
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
    return row && toKey(row);
  }

  async list(projectId?: string): Promise<ApiKeyRecord[]> {
    const found = projectId
      ? await this.db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 ORDER BY created_at, id`, [projectId])
      : await this.db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
    return found.map(toKey);
  }

  revoke(id: string): Promise<boolean> {
    return this.db.tx(async (c) => {
      const r = await c.query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [nowIso(), id]);
      if (!r.rowCount) return false;
      await notify(c, KEYS_CHANNEL);
      return true;
    });
  }

  async consumeQuota(keyId: string, counters: QuotaCounter[]): Promise<QuotaCounter | null> {
    if (counters.length === 0) return null;
    const periods = counters.map((c) => c.period).sort();
    // Every instance counts here: the counters' rows are locked (in one order, so two requests
    // cannot deadlock) before they are read, so check and increment are one step across
    // instances and a quota is never overshot.
    return this.db.tx(async (c) => {
      await c.query(
        "INSERT INTO key_usage (key_id, period, count) SELECT $1, p, 0 FROM unnest($2::text[]) AS p ON CONFLICT (key_id, period) DO NOTHING",
        [keyId, periods],
      );
      const counts = new Map(
        (await rows<{ period: string; count: number }>(c, "SELECT period, count FROM key_usage WHERE key_id = $1 AND period = ANY($2) ORDER BY period FOR UPDATE", [keyId, periods]))
          .map((r) => [r.period, r.count]),
      );
      for (const counter of counters) if ((counts.get(counter.period) ?? 0) >= counter.limit) return counter;
      await c.query("UPDATE key_usage SET count = count + 1 WHERE key_id = $1 AND period = ANY($2)", [keyId, periods]);
      return null;
    });
  }
}
