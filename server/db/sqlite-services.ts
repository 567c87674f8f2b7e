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
import { ThreadedDeliveryRepository } from "../inbound/delivery-writer.ts";
import { SqliteMessageOutcomes } from "../mail-sending/sqlite-message-outcomes.ts";
import { SqliteSentMessageRepository } from "../mail-sending/sqlite-sent-message-repository.ts";
import { SqliteTemplateRepository } from "../mail-sending/sqlite-template-repository.ts";
import { SqliteMessageRepository } from "../mailbox-reading/sqlite-message-repository.ts";
import { CachedMailboxRepository } from "../mailboxes/cached-mailbox-repository.ts";
import { SqliteMailboxRepository } from "../mailboxes/sqlite-mailbox-repository.ts";
import { SqliteMailDomainRepository } from "../maildomains/sqlite-maildomain-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import type { StoreContext, StoreServices } from "../services.ts";
import type { ConsoleStore } from "../console/commands.ts";
import { SqliteBotRepository } from "../messenger/sqlite-bot-repository.ts";
import { SqliteWebmailRepository } from "../webmail/sqlite-webmail-repository.ts";
import { SqlDeliveryStore } from "../webhooks/delivery-store.ts";
import { SqlWebhookRepository } from "../webhooks/webhook-repository.ts";
import { backendOn } from "./backend.ts";
import { SyncEventOutbox, SyncJobQueue } from "./legacy-sqlite-outbox.ts";
import { storeOnSqlite } from "./sqlite-store.ts";
import { otherWriterWatcher } from "./data-version.ts";

/** The repositories on db, open and migrated already (openDatabase). */
export function sqliteStore(db: DatabaseSync, { config, secrets, clock }: StoreContext): StoreServices {
  const store = storeOnSqlite(db);
  const backend = backendOn(store, clock);
  // Transitional (issue 37): the synchronous enqueue and emit of the areas not yet on Sql.
  const jobs = new SyncJobQueue(db, clock);
  const events = new SyncEventOutbox(db, jobs, clock);
  const mailboxes = new CachedMailboxRepository(new SqliteMailboxRepository(db), otherWriterWatcher(db));
  return {
    backend,
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new SqliteKeyRepository(db), otherWriterWatcher(db)),
    // One process owns the file: its memory is exact for L1.
    limiter: new FixedWindowRateLimiter(),
    zones: new SqliteDnsRecordRepository(db),
    mailDomains: new SqliteMailDomainRepository(db, secrets, events),
    mailboxes,
    webmail: new SqliteWebmailRepository(db),
    webhooks: new SqlWebhookRepository(store, backend.queue),
    webhookStore: new SqlDeliveryStore(store, backend.queue),
    delivery: new ThreadedDeliveryRepository(db, config.dataDir, (projectId) => mailboxes.usageChanged(projectId)),
    mailboxMessages: new SqliteMessageRepository(db),
    sentMessages: new SqliteSentMessageRepository(db, jobs, clock),
    mailFeedback: new SqliteMessageOutcomes(db, events, clock),
    templates: new SqliteTemplateRepository(db),
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
    templates: new SqliteTemplateRepository(db),
    bots: new SqliteBotRepository(db),
  };
}
