// The embedded default's composition: every repository on the one SQLite file, the job queue and
// the event outbox in it, caches invalidated by data_version (another process: the console).
// Only composes; the classes live in their areas, written once for both stores (db/sql.ts).
import type { DatabaseSync } from "node:sqlite";
import { CachedKeyRepository } from "../auth/cached-key-repository.ts";
import { KEYS_CHANNEL, SqlKeyRepository } from "../auth/key-repository.ts";
import { FixedWindowRateLimiter } from "../auth/rate-limiter.ts";
import { SqlCertificateRepository } from "../certificates/certificate-repository.ts";
import { consoleStoreOn } from "../console/console-store.ts";
import type { ConsoleStore } from "../console/commands.ts";
import { SqlDlpRepository } from "../dlp/dlp-repository.ts";
import { zoneRepository } from "../dns/zone-repository.ts";
import { ThreadedDeliveryRepository } from "../inbound/delivery-writer.ts";
import { SqlMessageOutcomes } from "../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../mail-sending/template-repository.ts";
import { SqlMessageRepository } from "../mailbox-reading/message-repository.ts";
import { CachedMailboxRepository } from "../mailboxes/cached-mailbox-repository.ts";
import { MAILBOXES_CHANNEL, SqlMailboxRepository } from "../mailboxes/mailbox-repository.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { SqlBotRepository } from "../messenger/bot-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import type { StoreContext, StoreServices } from "../services.ts";
import { SqlWebmailRepository } from "../webmail/webmail-repository.ts";
import { SqlDeliveryStore } from "../webhooks/delivery-store.ts";
import { SqlWebhookRepository } from "../webhooks/webhook-repository.ts";
import { backendOn } from "./backend.ts";
import { mailOutboxOf } from "./mail-outbox-of.ts";
import { storeOnSqlite } from "./sqlite-store.ts";

/** The repositories on db, open and migrated already (openDatabase). */
export async function sqliteStore(db: DatabaseSync, { config, secrets, clock }: StoreContext): Promise<StoreServices> {
  const store = storeOnSqlite(db);
  const backend = backendOn(store, clock);
  const mailboxes = new CachedMailboxRepository(new SqlMailboxRepository(store), await store.changes(MAILBOXES_CHANNEL));
  const mailOutbox = mailOutboxOf(backend);
  return {
    backend,
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new SqlKeyRepository(store), await store.changes(KEYS_CHANNEL)),
    // One process owns the file: its memory is exact for L1.
    limiter: new FixedWindowRateLimiter(),
    zones: await zoneRepository(store),
    // A claim that ends releases its addresses in the same transaction (decision O8).
    mailDomains: new SqlMailDomainRepository(backend, secrets, (tx, claim, at) => mailboxes.releaseClaim(tx, claim, at)),
    mailboxes,
    webmail: new SqlWebmailRepository(store),
    webhooks: new SqlWebhookRepository(store, backend.queue),
    webhookStore: new SqlDeliveryStore(store, backend.queue),
    // The writes of accepted mail run on a thread of their own, with its own connection.
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
  const store = storeOnSqlite(db);
  return { ...consoleStoreOn(store), templates: new SqlTemplateRepository(store) };
}
