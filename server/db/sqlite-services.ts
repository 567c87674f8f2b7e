// The embedded default's composition: every repository on the one SQLite file, the job queue and
// the event outbox in it, caches invalidated by data_version (another process: the console).
// Only composes; the classes live in their areas.
import type { DatabaseSync } from "node:sqlite";
import { CachedKeyRepository } from "../auth/cached-key-repository.ts";
import { FixedWindowRateLimiter } from "../auth/rate-limiter.ts";
import { SqliteKeyRepository } from "../auth/sqlite-key-repository.ts";
import { SqliteCertificateRepository } from "../certificates/sqlite-certificate-repository.ts";
import { SqliteDlpRepository } from "../dlp/sqlite-dlp-repository.ts";
import { SqliteDnsRecordRepository } from "../dns/sqlite-zone-repository.ts";
import { EventOutbox } from "../events/event-outbox.ts";
import { ThreadedDeliveryRepository } from "../inbound/delivery-writer.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import type { MailOutbox } from "../mail-sending/mail-outbox.ts";
import { SqlMessageOutcomes } from "../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../mail-sending/template-repository.ts";
import { SqliteMessageRepository } from "../mailbox-reading/sqlite-message-repository.ts";
import { CachedMailboxRepository } from "../mailboxes/cached-mailbox-repository.ts";
import { SqliteMailboxRepository } from "../mailboxes/sqlite-mailbox-repository.ts";
import { SqliteMailDomainRepository } from "../maildomains/sqlite-maildomain-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import type { StoreContext, StoreServices } from "../services.ts";
import type { ConsoleStore } from "../console/commands.ts";
import { SqliteBotRepository } from "../messenger/sqlite-bot-repository.ts";
import { SqliteWebmailRepository } from "../webmail/sqlite-webmail-repository.ts";
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
export function sqliteStore(db: DatabaseSync, { config, secrets, clock }: StoreContext): StoreServices {
  const store = storeOnSqlite(db);
  const jobs = new JobQueue(db, clock);
  const events = new EventOutbox(db, jobs, clock);
  const mailboxes = new CachedMailboxRepository(new SqliteMailboxRepository(db), otherWriterWatcher(db));
  const mailOutbox = sqliteMailOutbox(jobs, events);
  return {
    backend: sqliteBackend(db, jobs, events),
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new SqliteKeyRepository(db), otherWriterWatcher(db)),
    // One process owns the file: its memory is exact for L1.
    limiter: new FixedWindowRateLimiter(),
    zones: new SqliteDnsRecordRepository(db),
    mailDomains: new SqliteMailDomainRepository(db, secrets, events),
    mailboxes,
    webmail: new SqliteWebmailRepository(db),
    webhooks: new SqliteWebhookRepository(db, jobs),
    webhookStore: new SqliteDeliveryStore(db, jobs),
    delivery: new ThreadedDeliveryRepository(db, config.dataDir, (projectId) => mailboxes.usageChanged(projectId)),
    mailboxMessages: new SqliteMessageRepository(db),
    sentMessages: new SqlSentMessageRepository(store, mailOutbox, clock),
    mailFeedback: new SqlMessageOutcomes(store, mailOutbox, clock),
    mailOutbox,
    templates: new SqlTemplateRepository(store),
    certificates: new SqliteCertificateRepository(db, clock),
    dlpLog: new SqliteDlpRepository(db),
    bots: new SqliteBotRepository(db),
  };
}

/** What the console (platform-admin) works on, on the server's SQLite file. */
export function sqliteConsoleStore(db: DatabaseSync): ConsoleStore {
  const store = storeOnSqlite(db);
  return {
    projects: new SqlProjectRepository(store),
    keys: new SqliteKeyRepository(db),
    zones: new SqliteDnsRecordRepository(db),
    templates: new SqlTemplateRepository(store),
    bots: new SqliteBotRepository(db),
  };
}
