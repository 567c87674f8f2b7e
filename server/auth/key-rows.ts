// An API key's row as both repositories read it (sqlite-key-repository.ts, pg-key-repository.ts).
import type { ApiKeyRecord } from "./key-repository.ts";

export interface KeyRow {
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

export const toKey = (r: KeyRow): ApiKeyRecord => ({
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
