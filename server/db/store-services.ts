// The one composition of the repositories on a Store (db/sql.ts), for both stores: every
// repository is written once, so the compositions differed only in what the store asks for,
// which each store's own file hands here (sqlite-services.ts, postgres/pg-services.ts): the L1
// rate limiter, the inbound delivery path, and whether mailboxes keep distinct address lists.
import type { RateLimiter } from "../auth/rate-limiter.ts";
import { CachedKeyRepository } from "../auth/cached-key-repository.ts";
import { KEYS_CHANNEL, SqlKeyRepository } from "../auth/key-repository.ts";
import { SqlCertificateRepository } from "../certificates/certificate-repository.ts";
import { consoleStoreOn } from "../console/console-store.ts";
import type { ConsoleStore } from "../console/commands.ts";
import { SqlDlpRepository } from "../dlp/dlp-repository.ts";
import { zoneRepository } from "../dns/zone-repository.ts";
import type { DeliveryRepository } from "../inbound/delivery-repository.ts";
import { SqlMessageOutcomes } from "../mail-sending/message-outcomes.ts";
import { SqlSentMessageRepository } from "../mail-sending/sent-message-repository.ts";
import { SqlTemplateRepository } from "../mail-sending/template-repository.ts";
import { SqlMessageRepository } from "../mailbox-reading/message-repository.ts";
import { CachedMailboxRepository } from "../mailboxes/cached-mailbox-repository.ts";
import { MAILBOXES_CHANNEL, SqlMailboxRepository } from "../mailboxes/mailbox-repository.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { SqlBotRepository } from "../messenger/bot-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { SqlSuppressionRepository } from "../suppressions/suppression-repository.ts";
import type { StoreContext, StoreServices } from "../services.ts";
import { SqlWebmailRepository } from "../webmail/webmail-repository.ts";
import { SqlDeliveryStore } from "../webhooks/delivery-store.ts";
import { SqlWebhookRepository } from "../webhooks/webhook-repository.ts";
import { backendOn, type Backend } from "./backend.ts";
import { mailOutboxOf } from "./mail-outbox-of.ts";
import type { Store } from "./sql.ts";

/** What differs between the stores' compositions. */
export interface StoreChoices {
  limiter: RateLimiter;
  /** The inbound delivery; `usageChanged` drops a project's cached mailbox list (its usedBytes moved). */
  delivery(backend: Backend, usageChanged: (projectId: string) => void): DeliveryRepository;
  /** Whether the schema keeps each mailbox's distinct address lists (mailbox-reading/migrations.ts). */
  addressLists: boolean;
}

/** The repositories on `store`, open and migrated already. */
export async function composeServices(store: Store, { clock, secrets }: StoreContext, choices: StoreChoices): Promise<StoreServices> {
  const backend = backendOn(store, clock);
  const mailboxes = new CachedMailboxRepository(new SqlMailboxRepository(store), await store.changes(MAILBOXES_CHANNEL));
  const mailOutbox = mailOutboxOf(backend);
  return {
    backend,
    projects: new SqlProjectRepository(store),
    keys: new CachedKeyRepository(new SqlKeyRepository(store), await store.changes(KEYS_CHANNEL)),
    limiter: choices.limiter,
    // Its change token follows other writers (data_version, or NOTIFY on ZONES_CHANNEL): the DNS server's cache too.
    zones: await zoneRepository(store),
    // A claim that ends releases its addresses in the same transaction (decision O8).
    mailDomains: new SqlMailDomainRepository(backend, secrets, (tx, claim, at) => mailboxes.releaseClaim(tx, claim, at)),
    mailboxes,
    webmail: new SqlWebmailRepository(store),
    webhooks: new SqlWebhookRepository(store, backend.queue),
    webhookStore: new SqlDeliveryStore(store, backend.queue),
    delivery: choices.delivery(backend, (projectId) => mailboxes.usageChanged(projectId)),
    mailboxMessages: new SqlMessageRepository(store, { addressLists: choices.addressLists }),
    sentMessages: new SqlSentMessageRepository(store, mailOutbox, clock),
    mailFeedback: new SqlMessageOutcomes(store, mailOutbox, clock),
    mailOutbox,
    templates: new SqlTemplateRepository(store),
    certificates: new SqlCertificateRepository(store, clock),
    dlpLog: new SqlDlpRepository(store),
    suppressions: new SqlSuppressionRepository(store, clock),
    bots: new SqlBotRepository(store),
  };
}

/** What the console (platform-admin) works on. */
export function consoleServices(store: Store): ConsoleStore {
  return { ...consoleStoreOn(store), templates: new SqlTemplateRepository(store) };
}
