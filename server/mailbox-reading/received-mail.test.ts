// Received mail's storage (delivery and reading): the shared suite on both backends.
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { PgDeliveryRepository } from "../inbound/pg-delivery-repository.ts";
import { emitReceived, receivedData } from "../inbound/received-event.ts";
import { SqliteDeliveryRepository } from "../inbound/sqlite-delivery-repository.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import { backends } from "../test/backends.ts";
import { PgMessageRepository } from "./pg-message-repository.ts";
import { describeReceivedMailStorage } from "./received-mail.contract.ts";
import { SqliteMessageRepository } from "./sqlite-message-repository.ts";

for (const backend of backends) {
  describeReceivedMailStorage(backend, (c) => {
    if (c.backend === "sqlite") {
      const events = new EventOutbox(c.db, new JobQueue(c.db, systemClock), systemClock);
      return { delivery: new SqliteDeliveryRepository(c.db, (copy, m) => emitReceived(events, copy, m)), messages: new SqliteMessageRepository(c.db) };
    }
    const events = new PgEventOutbox(new PgJobQueue(c.pg, systemClock), systemClock);
    return {
      delivery: new PgDeliveryRepository(c.pg, async (t, copy, m) => void (await events.emit(t, copy.projectId, "mail.received", receivedData(copy, m)))),
      messages: new PgMessageRepository(c.pg),
    };
  });
}
