// Mail domains: the shared suite on both backends, each with its store's job queue and event outbox.
import { backendOn, type Backend } from "../db/backend.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { systemClock } from "../jobs/clock.ts";
import { backends, byBackend } from "../test/backends.ts";
import { describeMailDomainRepository } from "./maildomain-repository.contract.ts";
import { SqlMailDomainRepository } from "./maildomain-repository.ts";

// The events' outbox is still one per store (server/events); the repository is one.
const backendOf = byBackend<Backend>({
  sqlite: (db) => {
    return backendOn(storeOnSqlite(db), systemClock);
  },
  postgres: (pg) => {
    return backendOn(storeOnPostgres(pg), systemClock);
  },
});

for (const backend of backends) describeMailDomainRepository(backend, (c, secrets) => new SqlMailDomainRepository(backendOf(c), secrets));
