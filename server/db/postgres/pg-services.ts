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
import type { DeliveryRepository } from "../../inbound/delivery-repository.ts";
import { PgDeliveryRepository } from "../../inbound/pg-delivery-repository.ts";
import { receivedData } from "../../inbound/received-event.ts";
import { PgMessageOutcomes } from "../../mail-sending/pg-message-outcomes.ts";
import { PgSentMessageRepository } from "../../mail-sending/pg-sent-message-repository.ts";
import { PgTemplateRepository } from "../../mail-sending/pg-template-repository.ts";
import { PgMessageRepository } from "../../mailbox-reading/pg-message-repository.ts";
import { CachedMailboxRepository } from "../../mailboxes/cached-mailbox-repository.ts";
import { MAILBOXES_CHANNEL, PgMailboxRepository } from "../../mailboxes/pg-mailbox-repository.ts";
import { PgMailDomainRepository } from "../../maildomains/pg-maildomain-repository.ts";
import type { StoreContext, StoreServices } from "../../services.ts";
import type { ConsoleStore } from "../../console/commands.ts";
import { PgBotRepository } from "../../messenger/pg-bot-repository.ts";
import { PgWebmailRepository } from "../../webmail/pg-webmail-repository.ts";
import { SqlDeliveryStore } from "../../webhooks/delivery-store.ts";
import { SqlWebhookRepository } from "../../webhooks/webhook-repository.ts";
import { backendOn } from "../backend.ts";
import { PgEventOutbox, PgJobQueue } from "./legacy-pg-outbox.ts";
import { notifyWatcher, type Pg } from "./pg.ts";
import { storeOnPostgres } from "./postgres-store.ts";
import { SqlProjectRepository } from "../../projects/project-repository.ts";

/** The repositories on pg, connected and migrated already (openPostgres). */
export async function postgresStore(pg: Pg, { clock, secrets }: StoreContext): Promise<StoreServices> {
  const store = storeOnPostgres(pg);
  const backend = backendOn(store, clock);
  // Transitional (issue 37): enqueue and emit on the raw client of the areas not yet on Sql.
  const jobs = new PgJobQueue(pg, clock);
  const events = new PgEventOutbox(jobs, clock);
  const mailboxes = new CachedMailboxRepository(new PgMailboxRepository(pg), await notifyWatcher(pg, MAILBOXES_CHANNEL));
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
    backend,
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new PgKeyRepository(pg), await notifyWatcher(pg, KEYS_CHANNEL)),
    // Counted in PostgreSQL: exact across every instance (decision P4).
    limiter: new PgRateLimiter(pg),
    // Its change token moves on ZONES_CHANNEL: the DNS server's cache follows other instances.
    zones: new PgDnsRecordRepository(pg),
    mailDomains: new PgMailDomainRepository(pg, secrets, events),
    mailboxes,
    webmail: new PgWebmailRepository(pg),
    webhooks: new SqlWebhookRepository(store, backend.queue),
    webhookStore: new SqlDeliveryStore(store, backend.queue),
    delivery,
    mailboxMessages: new PgMessageRepository(pg),
    sentMessages: new PgSentMessageRepository(pg, jobs, clock),
    mailFeedback: new PgMessageOutcomes(pg, events, clock),
    templates: new PgTemplateRepository(pg),
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
    templates: new PgTemplateRepository(pg),
    bots: new PgBotRepository(pg),
  };
}
