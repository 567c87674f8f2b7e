// Received mail's storage (delivery and reading): the shared suite on both backends.
import { postgresBackend, sqliteBackend, type Backend } from "../db/backend.ts";
import { EventOutbox } from "../events/event-outbox.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { SqlDeliveryRepository } from "../inbound/delivery-repository.ts";
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { backends, byBackend } from "../test/backends.ts";
import { SqlMessageRepository } from "./message-repository.ts";
import { describeReceivedMailStorage } from "./received-mail.contract.ts";

// The events' outbox is still one per store (server/events); the delivery repository is one.
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

for (const backend of backends) {
  describeReceivedMailStorage(backend, (c) => ({
    // PostgreSQL's schema has no trigger counting messages: its delivery counts them.
    delivery: new SqlDeliveryRepository(backendOf(c), { countsMessages: c.backend === "postgres" }),
    // Only SQLite's schema keeps each mailbox's distinct address lists.
    messages: new SqlMessageRepository(c.store, { addressLists: c.backend === "sqlite" }),
  }));
}
