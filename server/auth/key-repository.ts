// The storage boundary of API keys and their quota counters.

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
  /** A cache may answer at once (no promise): the request path then continues in the same turn. */
  findByHash(hash: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
  list(projectId?: string): Promise<ApiKeyRecord[]>;
  /** False when no such unrevoked key exists. */
  revoke(id: string): Promise<boolean>;
  /**
   * Counts one request against every counter, atomically, unless one is already at its limit;
   * then nothing is counted and that counter is returned.
   */
  consumeQuota(keyId: string, counters: QuotaCounter[]): Promise<QuotaCounter | null>;
}
