// API keys and their cache: the shared suite on both backends.
import { otherWriterWatcher } from "../db/data-version.ts";
import { notifyWatcher } from "../db/postgres/pg.ts";
import { backends, byBackend } from "../test/backends.ts";
import { CachedKeyRepository } from "./cached-key-repository.ts";
import { describeKeyRepository } from "./key-repository.contract.ts";
import type { KeyRepository } from "./key-repository.ts";
import { KEYS_CHANNEL, PgKeyRepository } from "./pg-key-repository.ts";
import { SqliteKeyRepository } from "./sqlite-key-repository.ts";

const make = byBackend<KeyRepository>({ sqlite: (db) => new SqliteKeyRepository(db), postgres: (pg) => new PgKeyRepository(pg) });
const makeCached = byBackend<Promise<KeyRepository>>({
  sqlite: async (db) => new CachedKeyRepository(new SqliteKeyRepository(db), otherWriterWatcher(db)),
  postgres: async (pg) => new CachedKeyRepository(new PgKeyRepository(pg), await notifyWatcher(pg, KEYS_CHANNEL)),
});
for (const backend of backends) describeKeyRepository(backend, { make, makeCached, channel: KEYS_CHANNEL });
