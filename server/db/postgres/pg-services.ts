// The PostgreSQL composition (issue 15, decisions P1-P5): every repository on one pool, the job
// queue claiming with SKIP LOCKED, the outbox in the writers' transactions, the rate limit counted
// in the database, and the per-instance caches (keys, mailbox lists, the DNS zones) dropped on
// NOTIFY from any instance. Only composes; the classes live in their areas, written once for both
// stores (db/sql.ts).
import { CachedKeyRepository } from "../../auth/cached-key-repository.ts";
import { KEYS_CHANNEL, SqlKeyRepository } from "../../auth/key-repository.ts";
import { StoredRateLimiter } from "../../auth/stored-rate-limiter.ts";
import { SqlCertificateRepository } from "../../certificates/certificate-repository.ts";
import { consoleStoreOn } from "../../console/console-store.ts";
import type { ConsoleStore } from "../../console/commands.ts";
import { SqlDlpRepository } from "../../dlp/dlp-repository.ts";
import { zoneRepository } from "../../dns/zone-repository.ts";
import { SqlDeliveryRepository, type DeliveryRepository } from "../../inbound/delivery-repository.ts";
import { SqlMessageOutcomes } from "../../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../../mail-sending/template-repository.ts";
import { SqlMessageRepository } from "../../mailbox-reading/message-repository.ts";
import { CachedMailboxRepository } from "../../mailboxes/cached-mailbox-repository.ts";
import { MAILBOXES_CHANNEL, SqlMailboxRepository } from "../../mailboxes/mailbox-repository.ts";
import { SqlMailDomainRepository } from "../../maildomains/maildomain-repository.ts";
import { SqlBotRepository } from "../../messenger/bot-repository.ts";
import { SqlProjectRepository } from "../../projects/project-repository.ts";
import type { StoreContext, StoreServices } from "../../services.ts";
import { SqlWebmailRepository } from "../../webmail/webmail-repository.ts";
import { SqlDeliveryStore } from "../../webhooks/delivery-store.ts";
import { SqlWebhookRepository } from "../../webhooks/webhook-repository.ts";
import { backendOn } from "../backend.ts";
import { mailOutboxOf } from "../mail-outbox-of.ts";
import type { Pg } from "./pg.ts";
import { storeOnPostgres } from "./postgres-store.ts";

/** The repositories on pg, connected and migrated already (openPostgres). */
export async function postgresStore(pg: Pg, { clock, secrets }: StoreContext): Promise<StoreServices> {
  const store = storeOnPostgres(pg);
  const backend = backendOn(store, clock);
  const mailboxes = new CachedMailboxRepository(new SqlMailboxRepository(store), await store.changes(MAILBOXES_CHANNEL));
  const mailOutbox = mailOutboxOf(backend);
  // PostgreSQL's schema has no trigger counting messages: the delivery keeps mailbox_message_counts.
  const stored = new SqlDeliveryRepository(backend, { countsMessages: true });
  // The delivery's NOTIFY reaches this instance's cache a moment after the commit; dropping the
  // list here as well means a client reading right after the 250 sees the new usedBytes.
  const delivery: DeliveryRepository = {
    lookup: (address) => stored.lookup(address),
    async store(message, recipients) {
      const copies = await stored.store(message, recipients);
      for (const projectId of new Set(copies.map((c) => c.projectId))) mailboxes.usageChanged(projectId);
      return copies;
    },
  };
  return {
    backend,
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new SqlKeyRepository(store), await store.changes(KEYS_CHANNEL)),
    // Counted in PostgreSQL: exact across every instance (decision P4).
    limiter: new StoredRateLimiter(store),
    // Its change token moves on ZONES_CHANNEL: the DNS server's cache follows other instances.
    zones: await zoneRepository(store),
    // A claim that ends releases its addresses in the same transaction (decision O8).
    mailDomains: new SqlMailDomainRepository(backend, secrets, (tx, claim, at) => mailboxes.releaseClaim(tx, claim, at)),
    mailboxes,
    webmail: new SqlWebmailRepository(store),
    webhooks: new SqlWebhookRepository(store, backend.queue),
    webhookStore: new SqlDeliveryStore(store, backend.queue),
    delivery,
    // No distinct address lists here: pg_trgm indexes answer the substring filters.
    mailboxMessages: new SqlMessageRepository(store, { addressLists: false }),
    sentMessages: new SqlSentMessageRepository(store, mailOutbox, clock),
    mailFeedback: new SqlMessageOutcomes(store, mailOutbox, clock),
    mailOutbox,
    templates: new SqlTemplateRepository(store),
    certificates: new SqlCertificateRepository(store, clock),
    dlpLog: new SqlDlpRepository(store),
    bots: new SqlBotRepository(store),
  };
}

/**
 * What the console (platform-admin) works on, on the shared database: its key and zone writes
 * NOTIFY, so every running instance drops its caches.
 */
export function postgresConsoleStore(pg: Pg): ConsoleStore {
  const store = storeOnPostgres(pg);
  return { ...consoleStoreOn(store), templates: new SqlTemplateRepository(store) };
}
