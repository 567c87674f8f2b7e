// The PostgreSQL composition (issue 15, decisions P1-P5): every repository on one pool, the job
// queue claiming with SKIP LOCKED, the outbox in the writers' transactions, the rate limit counted
// in the database, and the per-instance caches (keys, mailbox lists, the DNS zones) dropped on
// NOTIFY from any instance. Only composes; the classes live in their areas.
import { CachedKeyRepository } from "../../auth/cached-key-repository.ts";
import { KEYS_CHANNEL, SqlKeyRepository } from "../../auth/key-repository.ts";
import { StoredRateLimiter } from "../../auth/stored-rate-limiter.ts";
import { SqlCertificateRepository } from "../../certificates/certificate-repository.ts";
import { SqlDlpRepository } from "../../dlp/dlp-repository.ts";
import { zoneRepository } from "../../dns/zone-repository.ts";
import { PgEventOutbox } from "../../events/pg-event-outbox.ts";
import { SqlDeliveryRepository, type DeliveryRepository } from "../../inbound/delivery-repository.ts";
import { PgJobQueue } from "../../jobs/pg-job-queue.ts";
import type { MailOutbox } from "../../mail-sending/mail-outbox.ts";
import { SqlMessageOutcomes } from "../../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../../mail-sending/template-repository.ts";
import { SqlMessageRepository } from "../../mailbox-reading/message-repository.ts";
import { CachedMailboxRepository } from "../../mailboxes/cached-mailbox-repository.ts";
import { MAILBOXES_CHANNEL, SqlMailboxRepository } from "../../mailboxes/mailbox-repository.ts";
import { SqlMailDomainRepository } from "../../maildomains/maildomain-repository.ts";
import type { StoreContext, StoreServices } from "../../services.ts";
import type { ConsoleStore } from "../../console/commands.ts";
import { consoleStoreOn } from "../../console/console-store.ts";
import { SqlBotRepository } from "../../messenger/bot-repository.ts";
import { SqlWebmailRepository } from "../../webmail/webmail-repository.ts";
import { PgDeliveryStore } from "../../webhooks/pg-delivery-store.ts";
import { PgWebhookRepository } from "../../webhooks/pg-webhook-repository.ts";
import { postgresBackend } from "../backend.ts";
import { notifyWatcher, type Pg } from "./pg.ts";
import { storeOnPostgres, type PostgresStore } from "./postgres-store.ts";
import { SqlProjectRepository } from "../../projects/project-repository.ts";

/**
 * Outgoing mail's jobs and events on the queue and outbox, on the client of the transaction open
 * in the caller's context (the caller's `tx`).
 */
export function postgresMailOutbox(store: PostgresStore, jobs: PgJobQueue, events: PgEventOutbox): MailOutbox {
  return {
    enqueue: (_tx, kind, payload, options) => jobs.enqueue(store.on(), kind, payload, options),
    cancelWhere: (_tx, kind, path, value) => jobs.cancelWhere(store.on(), kind, path, value),
    emit: (_tx, projectId, type, data) => events.emit(store.on(), projectId, type, data),
  };
}

/** The repositories on pg, connected and migrated already (openPostgres). */
export async function postgresStore(pg: Pg, { clock, secrets }: StoreContext): Promise<StoreServices> {
  const store = storeOnPostgres(pg);
  const jobs = new PgJobQueue(pg, clock);
  const events = new PgEventOutbox(jobs, clock);
  const backend = postgresBackend(pg, jobs, events);
  const mailboxes = new CachedMailboxRepository(new SqlMailboxRepository(store), await store.changes(MAILBOXES_CHANNEL));
  const mailOutbox = postgresMailOutbox(store, jobs, events);
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
    mailDomains: new SqlMailDomainRepository(backend, secrets),
    mailboxes,
    webmail: new SqlWebmailRepository(store),
    webhooks: new PgWebhookRepository(pg, jobs),
    webhookStore: new PgDeliveryStore(pg, jobs),
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
  return {
    ...consoleStoreOn(storeOnPostgres(pg)),
    templates: new SqlTemplateRepository(storeOnPostgres(pg)),
  };
}
