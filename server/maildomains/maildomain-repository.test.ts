// Mail domains: the shared suite on both backends, each with its store's event outbox.
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import { backends } from "../test/backends.ts";
import { describeMailDomainRepository } from "./maildomain-repository.contract.ts";
import { PgMailDomainRepository } from "./pg-maildomain-repository.ts";
import { SqliteMailDomainRepository } from "./sqlite-maildomain-repository.ts";

for (const backend of backends) {
  describeMailDomainRepository(backend, (c, secrets) =>
    c.backend === "sqlite"
      ? new SqliteMailDomainRepository(c.db, secrets, new EventOutbox(c.db, new JobQueue(c.db, systemClock), systemClock))
      : new PgMailDomainRepository(c.pg, secrets, new PgEventOutbox(new PgJobQueue(c.pg, systemClock), systemClock)));
}
