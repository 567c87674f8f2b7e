// Outgoing mail's job queue and event outbox on a test connection, as the compositions build them.
import { sqliteMailOutbox } from "../../db/sqlite-services.ts";
import { postgresMailOutbox } from "../../db/postgres/pg-services.ts";
import type { PostgresStore } from "../../db/postgres/postgres-store.ts";
import { EventOutbox } from "../../events/event-outbox.ts";
import { PgEventOutbox } from "../../events/pg-event-outbox.ts";
import type { Clock } from "../../jobs/clock.ts";
import { JobQueue } from "../../jobs/job-queue.ts";
import { PgJobQueue } from "../../jobs/pg-job-queue.ts";
import type { Connection } from "../../test/backends.ts";
import type { MailOutbox } from "../mail-outbox.ts";

export function mailOutboxOf(c: Connection, clock: Clock): MailOutbox {
  if (c.backend === "sqlite") {
    const jobs = new JobQueue(c.db, clock);
    return sqliteMailOutbox(jobs, new EventOutbox(c.db, jobs, clock));
  }
  const jobs = new PgJobQueue(c.pg, clock);
  return postgresMailOutbox(c.store as PostgresStore, jobs, new PgEventOutbox(jobs, clock));
}
