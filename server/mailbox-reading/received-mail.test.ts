// Received mail's storage (delivery and reading): the shared suite on both backends.
import { backendOn, type Backend } from "../db/backend.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlDeliveryRepository } from "../inbound/delivery-repository.ts";
import { systemClock } from "../jobs/clock.ts";
import { backends, byBackend } from "../test/backends.ts";
import { SqlMessageRepository } from "./message-repository.ts";
import { describeReceivedMailStorage } from "./received-mail.contract.ts";

// The events' outbox is still one per store (server/events); the delivery repository is one.
const backendOf = byBackend<Backend>({
  sqlite: (db) => {
    return backendOn(storeOnSqlite(db), systemClock);
  },
  postgres: (pg) => {
    return backendOn(storeOnPostgres(pg), systemClock);
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
