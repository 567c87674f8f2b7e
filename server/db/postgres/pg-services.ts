// The PostgreSQL composition (issue 15, decisions P1-P5): every repository on one pool, the job
// queue claiming with SKIP LOCKED, the outbox in the writers' transactions, the rate limit counted
// in the database, and the per-instance caches (keys, mailbox lists, the DNS zones) dropped on
// NOTIFY from any instance. Only composes; the classes live in their areas.
import { CachedKeyRepository } from "../../auth/cached-key-repository.ts";
import { KEYS_CHANNEL, PgKeyRepository } from "../../auth/pg-key-repository.ts";
import { PgRateLimiter } from "../../auth/pg-rate-limiter.ts";
import { PgCertificateRepository } from "../../certificates/pg-certificate-repository.ts";
import { PgDlpRepository } from "../../dlp/pg-dlp-repository.ts";
import { PgDnsRecordRepository } from "../../dns/pg-zone-repository.ts";
import { PgEventOutbox } from "../../events/pg-event-outbox.ts";
import type { DeliveryRepository } from "../../inbound/delivery-repository.ts";
import { PgDeliveryRepository } from "../../inbound/pg-delivery-repository.ts";
import { receivedData } from "../../inbound/received-event.ts";
import { PgJobQueue } from "../../jobs/pg-job-queue.ts";
import type { MailOutbox } from "../../mail-sending/mail-outbox.ts";
import { SqlMessageOutcomes } from "../../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../../mail-sending/template-repository.ts";
import { PgMessageRepository } from "../../mailbox-reading/pg-message-repository.ts";
import { CachedMailboxRepository } from "../../mailboxes/cached-mailbox-repository.ts";
import { MAILBOXES_CHANNEL, PgMailboxRepository } from "../../mailboxes/pg-mailbox-repository.ts";
import { PgMailDomainRepository } from "../../maildomains/pg-maildomain-repository.ts";
import type { StoreContext, StoreServices } from "../../services.ts";
import type { ConsoleStore } from "../../console/commands.ts";
import { PgBotRepository } from "../../messenger/pg-bot-repository.ts";
import { PgWebmailRepository } from "../../webmail/pg-webmail-repository.ts";
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
  const mailboxes = new CachedMailboxRepository(new PgMailboxRepository(pg), await notifyWatcher(pg, MAILBOXES_CHANNEL));
  const mailOutbox = postgresMailOutbox(store, jobs, events);
  const stored = new PgDeliveryRepository(pg, async (c, copy, message) => {
    await events.emit(c, copy.projectId, "mail.received", receivedData(copy, message));
  });
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
    backend: postgresBackend(pg, jobs, events),
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new PgKeyRepository(pg), await notifyWatcher(pg, KEYS_CHANNEL)),
    // Counted in PostgreSQL: exact across every instance (decision P4).
    limiter: new PgRateLimiter(pg),
    // Its change token moves on ZONES_CHANNEL: the DNS server's cache follows other instances.
    zones: new PgDnsRecordRepository(pg),
    mailDomains: new PgMailDomainRepository(pg, secrets, events),
    mailboxes,
    webmail: new PgWebmailRepository(pg),
    webhooks: new PgWebhookRepository(pg, jobs),
    webhookStore: new PgDeliveryStore(pg, jobs),
    delivery,
    mailboxMessages: new PgMessageRepository(pg),
    sentMessages: new SqlSentMessageRepository(store, mailOutbox, clock),
    mailFeedback: new SqlMessageOutcomes(store, mailOutbox, clock),
    mailOutbox,
    templates: new SqlTemplateRepository(store),
    certificates: new PgCertificateRepository(pg, clock),
    dlpLog: new PgDlpRepository(pg),
    bots: new PgBotRepository(pg),
  };
}

/**
 * What the console (platform-admin) works on, on the shared database: its key and zone writes
 * NOTIFY, so every running instance drops its caches.
 */
export function postgresConsoleStore(pg: Pg): ConsoleStore {
  const store = storeOnPostgres(pg);
  return {
    projects: new SqlProjectRepository(store),
    keys: new PgKeyRepository(pg),
    zones: new PgDnsRecordRepository(pg),
    templates: new SqlTemplateRepository(store),
    bots: new PgBotRepository(pg),
  };
}
