// The embedded default's composition (db/store-services.ts) on the one SQLite file: the job queue
// and the event outbox in it, caches invalidated by data_version (another process: the console).
import type { DatabaseSync } from "node:sqlite";
import { FixedWindowRateLimiter } from "../auth/rate-limiter.ts";
import type { ConsoleStore } from "../console/commands.ts";
import { ThreadedDeliveryRepository } from "../inbound/delivery-writer.ts";
import type { StoreContext, StoreServices } from "../services.ts";
import { storeOnSqlite } from "./sqlite-store.ts";
import { composeServices, consoleServices } from "./store-services.ts";

/** The repositories on db, open and migrated already (openDatabase). */
export function sqliteStore(db: DatabaseSync, context: StoreContext): Promise<StoreServices> {
  return composeServices(storeOnSqlite(db), context, {
    // One process owns the file: its memory is exact for L1.
    limiter: new FixedWindowRateLimiter(),
    // The writes of accepted mail run on a thread of their own, with its own connection.
    delivery: (backend, usageChanged) => new ThreadedDeliveryRepository(backend, context.config.dataDir, usageChanged),
    // SQLite's schema keeps each mailbox's distinct address lists (mailbox-reading/migrations.ts).
    addressLists: true,
  });
}

/** What the console (platform-admin) works on, on the server's SQLite file. */
export function sqliteConsoleStore(db: DatabaseSync): ConsoleStore {
  return consoleServices(storeOnSqlite(db));
}
