// The messenger's storage: the shared suite on both stores.
import { postgresBackend, sqliteBackend } from "../db/backend.ts";
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import { backends, byBackend } from "../test/backends.ts";
import { describeBotStorage, type BotStorage } from "./bot-repository.contract.ts";
import { SqlBotRepository } from "./bot-repository.ts";

// The backend (job queue and outbox) is still built per store until the foundation is one too.
const backendOf = byBackend({
  sqlite: (db) => {
    const jobs = new JobQueue(db, systemClock);
    return sqliteBackend(db, jobs, new EventOutbox(db, jobs, systemClock));
  },
  postgres: (pg) => {
    const jobs = new PgJobQueue(pg, systemClock);
    return postgresBackend(pg, jobs, new PgEventOutbox(jobs, systemClock));
  },
});

for (const backend of backends) describeBotStorage(backend, (c): BotStorage => ({ bots: new SqlBotRepository(c.store), backend: backendOf(c) }));
