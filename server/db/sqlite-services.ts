// The embedded default's composition: every repository on the one SQLite file, the job queue and
// the event outbox in it, caches invalidated by data_version (another process: the console).
// Only composes; the classes live in their areas.
import type { DatabaseSync } from "node:sqlite";
import { CachedKeyRepository } from "../auth/cached-key-repository.ts";
import { FixedWindowRateLimiter } from "../auth/rate-limiter.ts";
import { KEYS_CHANNEL, SqlKeyRepository } from "../auth/key-repository.ts";
import { SqlCertificateRepository } from "../certificates/certificate-repository.ts";
import { SqlDlpRepository } from "../dlp/dlp-repository.ts";
import { zoneRepository } from "../dns/zone-repository.ts";
import { EventOutbox } from "../events/event-outbox.ts";
import { ThreadedDeliveryRepository } from "../inbound/delivery-writer.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import type { MailOutbox } from "../mail-sending/mail-outbox.ts";
import { SqlMessageOutcomes } from "../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../mail-sending/template-repository.ts";
import { SqlMessageRepository } from "../mailbox-reading/message-repository.ts";
import { CachedMailboxRepository } from "../mailboxes/cached-mailbox-repository.ts";
import { SqlMailboxRepository } from "../mailboxes/mailbox-repository.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import type { StoreContext, StoreServices } from "../services.ts";
import type { ConsoleStore } from "../console/commands.ts";
import { consoleStoreOn } from "../console/console-store.ts";
import { SqlBotRepository } from "../messenger/bot-repository.ts";
import { SqlWebmailRepository } from "../webmail/webmail-repository.ts";
import { SqliteDeliveryStore } from "../webhooks/sqlite-delivery-store.ts";
import { SqliteWebhookRepository } from "../webhooks/sqlite-webhook-repository.ts";
import { sqliteBackend } from "./backend.ts";
import { storeOnSqlite } from "./sqlite-store.ts";
import { otherWriterWatcher } from "./data-version.ts";

/**
 * Outgoing mail's jobs and events on the connection's queue and outbox: their statements run on
 * the one connection, inside the transaction that holds it (the caller's `tx`).
 */
export function sqliteMailOutbox(jobs: JobQueue, events: EventOutbox): MailOutbox {
  return {
    enqueue: async (_tx, kind, payload, options) => jobs.enqueue(kind, payload, options),
    cancelWhere: async (_tx, kind, path, value) => jobs.cancelWhere(kind, path, value),
    emit: async (_tx, projectId, type, data) => events.emit(projectId, type, data),
  };
}

/** The repositories on db, open and migrated already (openDatabase). */
export async function sqliteStore(db: DatabaseSync, { config, secrets, clock }: StoreContext): Promise<StoreServices> {
  const store = storeOnSqlite(db);
  const jobs = new JobQueue(db, clock);
  const events = new EventOutbox(db, jobs, clock);
  const backend = sqliteBackend(db, jobs, events);
  const mailboxes = new CachedMailboxRepository(new SqlMailboxRepository(store), otherWriterWatcher(db)); // = store.changes(MAILBOXES_CHANNEL), which is async by interface
  const mailOutbox = sqliteMailOutbox(jobs, events);
  return {
    backend,
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new SqlKeyRepository(store), await store.changes(KEYS_CHANNEL)),
    // One process owns the file: its memory is exact for L1.
    limiter: new FixedWindowRateLimiter(),
    zones: await zoneRepository(store),
    mailDomains: new SqlMailDomainRepository(backend, secrets),
    mailboxes,
    webmail: new SqlWebmailRepository(store),
    webhooks: new SqliteWebhookRepository(db, jobs),
    webhookStore: new SqliteDeliveryStore(db, jobs),
    delivery: new ThreadedDeliveryRepository(backend, config.dataDir, (projectId) => mailboxes.usageChanged(projectId)),
    // SQLite's schema keeps each mailbox's distinct address lists (mailbox-reading/migrations.ts).
    mailboxMessages: new SqlMessageRepository(store, { addressLists: true }),
    sentMessages: new SqlSentMessageRepository(store, mailOutbox, clock),
    mailFeedback: new SqlMessageOutcomes(store, mailOutbox, clock),
    mailOutbox,
    templates: new SqlTemplateRepository(store),
    certificates: new SqlCertificateRepository(store, clock),
    dlpLog: new SqlDlpRepository(store),
    bots: new SqlBotRepository(store),
  };
}

/** What the console (platform-admin) works on, on the server's SQLite file. */
export function sqliteConsoleStore(db: DatabaseSync): ConsoleStore {
  return {
    ...consoleStoreOn(storeOnSqlite(db)),
    templates: new SqlTemplateRepository(storeOnSqlite(db)),
  };
}
