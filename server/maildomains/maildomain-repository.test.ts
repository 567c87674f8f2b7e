// Mail domains: the shared suite on both backends, each with its store's job queue and event outbox.
import { sqliteBackend, postgresBackend, type Backend } from "../db/backend.ts";
import { EventOutbox } from "../events/event-outbox.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { backends, byBackend } from "../test/backends.ts";
import { describeMailDomainRepository } from "./maildomain-repository.contract.ts";
import { SqlMailDomainRepository } from "./maildomain-repository.ts";

// The events' outbox is still one per store (server/events); the repository is one.
const backendOf = byBackend<Backend>({
  sqlite: (db) => {
    const jobs = new JobQueue(db, systemClock);
    return sqliteBackend(db, jobs, new EventOutbox(db, jobs, systemClock));
  },
  postgres: (pg) => {
    const jobs = new PgJobQueue(pg, systemClock);
    return postgresBackend(pg, jobs, new PgEventOutbox(jobs, systemClock));
  },
});

for (const backend of backends) describeMailDomainRepository(backend, (c, secrets) => new SqlMailDomainRepository(backendOf(c), secrets));
