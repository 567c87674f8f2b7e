// Key lookups on every request, answered from memory. The cache is dropped whenever the store
// may have changed: on this process's own writes, and when `changed()` (store.changes on
// KEYS_CHANNEL) reports a write by another process or instance (the console revoking a key),
// so a revocation still takes effect at once.
import type { ApiKeyRecord, KeyRepository, NewApiKey, QuotaCounter } from "./key-repository.ts";

export class CachedKeyRepository implements KeyRepository {
  private readonly inner: KeyRepository;
  private readonly changed: () => boolean;
  private readonly byHash = new Map<string, ApiKeyRecord | undefined>();

  constructor(inner: KeyRepository, changed: () => boolean) {
    this.inner = inner;
    this.changed = changed;
  }

  /** The key of `hash` if the cache holds it and nothing may have changed it since: no store read. */
  peek(hash: string): ApiKeyRecord | undefined {
    if (this.changed()) this.byHash.clear();
    return this.byHash.get(hash);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const cached = this.peek(hash);
    if (cached) return cached;
    const found = await this.inner.findByHash(hash);
    // Unknown hashes are not cached: a flood of random keys must not grow memory.
    if (found) {
      if (this.byHash.size >= 10_000) this.byHash.clear();
      this.byHash.set(hash, found);
    }
    return found;
  }

  async create(key: NewApiKey): Promise<ApiKeyRecord> {
    this.byHash.clear();
    return this.inner.create(key);
  }

  list(projectId?: string): Promise<ApiKeyRecord[]> {
    return this.inner.list(projectId);
  }

  async revoke(id: string): Promise<boolean> {
    this.byHash.clear();
    return this.inner.revoke(id);
  }

  consumeQuota(keyId: string, counters: QuotaCounter[]): Promise<QuotaCounter | null> {
    return this.inner.consumeQuota(keyId, counters);
  }
}
