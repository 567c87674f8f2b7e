// API keys and their cache: the shared suite on both stores.
import { backends } from "../test/backends.ts";
import { CachedKeyRepository } from "./cached-key-repository.ts";
import { describeKeyRepository } from "./key-repository.contract.ts";
import { KEYS_CHANNEL, SqlKeyRepository } from "./key-repository.ts";

for (const backend of backends) {
  describeKeyRepository(backend, {
    make: (c) => new SqlKeyRepository(c.store),
    makeCached: async (c) => new CachedKeyRepository(new SqlKeyRepository(c.store), await c.store.changes(KEYS_CHANNEL)),
    channel: KEYS_CHANNEL,
  });
}
