// The messenger's storage: the shared suite on both backends.
import { postgresBackend, sqliteBackend } from "../db/backend.ts";
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import { backends, byBackend } from "../test/backends.ts";
import { describeBotStorage, type BotStorage } from "./bot-repository.contract.ts";
import { PgBotRepository } from "./pg-bot-repository.ts";
import { SqliteBotRepository } from "./sqlite-bot-repository.ts";

for (const backend of backends) {
  describeBotStorage(backend, byBackend<BotStorage>({
    sqlite: (db) => {
      const jobs = new JobQueue(db, systemClock);
      return { bots: new SqliteBotRepository(db), backend: sqliteBackend(db, jobs, new EventOutbox(db, jobs, systemClock)) };
    },
    postgres: (pg) => {
      const jobs = new PgJobQueue(pg, systemClock);
      return { bots: new PgBotRepository(pg), backend: postgresBackend(pg, jobs, new PgEventOutbox(jobs, systemClock)) };
    },
  }));
}
