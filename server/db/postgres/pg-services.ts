// The PostgreSQL composition (db/store-services.ts; issue 15, decisions P1-P5): every repository
// on one pool, the job queue claiming with SKIP LOCKED, the outbox in the writers' transactions,
// the rate limit counted in the database, and the per-instance caches (keys, mailbox lists, the
// DNS zones) dropped on NOTIFY from any instance.
import { StoredRateLimiter } from "../../auth/stored-rate-limiter.ts";
import type { ConsoleStore } from "../../console/commands.ts";
import { SqlDeliveryRepository } from "../../inbound/delivery-repository.ts";
import type { StoreContext, StoreServices } from "../../services.ts";
import { composeServices, consoleServices } from "../store-services.ts";
import type { Pg } from "./pg.ts";
import { storeOnPostgres } from "./postgres-store.ts";

/** The repositories on pg, connected and migrated already (openPostgres). */
export function postgresStore(pg: Pg, context: StoreContext): Promise<StoreServices> {
  const store = storeOnPostgres(pg);
  return composeServices(store, context, {
    // Counted in PostgreSQL: exact across every instance (decision P4).
    limiter: new StoredRateLimiter(store),
    delivery: (backend, usageChanged) => {
      // PostgreSQL's schema has no trigger counting messages: the delivery keeps mailbox_message_counts.
      const stored = new SqlDeliveryRepository(backend, { countsMessages: true });
      // The delivery's NOTIFY reaches this instance's cache a moment after the commit; dropping the
      // list here as well means a client reading right after the 250 sees the new usedBytes.
      return {
        lookup: (address) => stored.lookup(address),
        async store(message, recipients) {
          const copies = await stored.store(message, recipients);
          for (const projectId of new Set(copies.map((c) => c.projectId))) usageChanged(projectId);
          return copies;
        },
      };
    },
    // No distinct address lists here: pg_trgm indexes answer the substring filters.
    addressLists: false,
  });
}

/**
 * What the console (platform-admin) works on, on the shared database: its key and zone writes
 * NOTIFY, so every running instance drops its caches.
 */
export function postgresConsoleStore(pg: Pg): ConsoleStore {
  return consoleServices(storeOnPostgres(pg));
}
