// Wires the embedded default: every repository on the one SQLite file. A PostgreSQL deployment
// would provide the same interfaces here and leave handlers untouched.
import type { DatabaseSync } from "node:sqlite";
import { CachedKeyRepository } from "./auth/cached-key-repository.ts";
import { FixedWindowRateLimiter } from "./auth/rate-limiter.ts";
import type { KeyRepository } from "./auth/key-repository.ts";
import { SqliteKeyRepository } from "./auth/sqlite-key-repository.ts";
import type { CertificateRepository } from "./certificates/certificate-repository.ts";
import { certificateJobs } from "./certificates/setup.ts";
import { SqliteCertificateRepository } from "./certificates/sqlite-certificate-repository.ts";
import type { ServerConfig } from "./config.ts";
import { otherWriterWatcher } from "./db/data-version.ts";
import { createResolver, type DnsResolver } from "./dns/resolver.ts";
import type { DlpInspector } from "./dlp/dlp-port.ts";
import { DlpScannerInspector } from "./dlp/dlp-inspector.ts";
import type { DlpRepository } from "./dlp/dlp-repository.ts";
import { ScanPool } from "./dlp/scan-pool.ts";
import { SqliteDlpRepository } from "./dlp/sqlite-dlp-repository.ts";
import { EventOutbox } from "./events/event-outbox.ts";
import { systemClock, type Clock } from "./jobs/clock.ts";
import { JobQueue } from "./jobs/job-queue.ts";
import type { DeliveryRepository } from "./inbound/delivery-repository.ts";
import { InboundRoutes } from "./inbound/routes.ts";
import { ThreadedDeliveryRepository } from "./inbound/delivery-writer.ts";
import type { MessageRepository } from "./mailbox-reading/message-repository.ts";
import { SqliteMessageRepository } from "./mailbox-reading/sqlite-message-repository.ts";
import type { JobHandler } from "./jobs/worker.ts";
import { SqliteDnsRecordRepository } from "./dns/sqlite-zone-repository.ts";
import type { DnsRecordRepository } from "./dns/zone-repository.ts";
import type { MailboxRepository } from "./mailboxes/mailbox-repository.ts";
import { CachedMailboxRepository } from "./mailboxes/cached-mailbox-repository.ts";
import { SqliteMailboxRepository } from "./mailboxes/sqlite-mailbox-repository.ts";
import { createMessenger, messengerJobHandlers, type MessengerContext } from "./messenger/messenger-context.ts";
import type { MailDomainRepository } from "./maildomains/maildomain-repository.ts";
import { SqliteMailDomainRepository } from "./maildomains/sqlite-maildomain-repository.ts";
import type { ProjectRepository } from "./projects/project-repository.ts";
import { SqliteProjectRepository } from "./projects/sqlite-project-repository.ts";
import { SecretBox } from "./secrets/secret-box.ts";
import type { DeliveryOutcomes, MessageFeedback, SentMessageRepository } from "./mail-sending/message-repository.ts";
import { mailJobHandlers } from "./mail-sending/relay.ts";
import { SqliteMessageOutcomes } from "./mail-sending/sqlite-message-outcomes.ts";
import { SqliteSentMessageRepository } from "./mail-sending/sqlite-sent-message-repository.ts";
import { SqliteTemplateRepository } from "./mail-sending/sqlite-template-repository.ts";
import type { TemplateRepository } from "./mail-sending/template-repository.ts";
import { mailboxMessageStore, type MessageStore } from "./webmail/message-store.ts";
import { SqliteWebmailRepository } from "./webmail/sqlite-webmail-repository.ts";
import type { WebmailRepository } from "./webmail/webmail-repository.ts";
import { sendWebhook } from "./adapters/webhook-sender.ts";
import { resolverAt as hostResolverAt, systemResolver } from "./adapters/host-resolver.ts";
import { DELIVER_JOB } from "./events/event-outbox.ts";
import { deliveryEngine, type DeliveryEngine } from "./webhooks/delivery-engine.ts";
import { SqliteDeliveryStore } from "./webhooks/sqlite-delivery-store.ts";
import { SqliteWebhookRepository } from "./webhooks/sqlite-webhook-repository.ts";
import type { WebhookRepository } from "./webhooks/webhook-repository.ts";

export interface Services {
  config: ServerConfig;
  /** For seams whose writes join another area's transaction (DLP `record`). */
  db: DatabaseSync;
  projects: ProjectRepository;
  keys: KeyRepository;
  limiter: FixedWindowRateLimiter;
  zones: DnsRecordRepository;
  mailDomains: MailDomainRepository;
  mailboxes: MailboxRepository;
  webmail: WebmailRepository;
  messages: MessageStore;
  webhooks: WebhookRepository;
  /** The webhook delivery engine: `webhook.deliver` jobs and redelivery (server/webhooks/README.md). */
  webhookDeliveries: DeliveryEngine;
  secrets: SecretBox;
  resolver: DnsResolver;
  clock: Clock;
  /** The one durable queue of background work (server/jobs/README.md). */
  jobs: JobQueue;
  /** Areas register the handler of each job kind they enqueue; platform.ts runs them. */
  jobHandlers: Record<string, JobHandler>;
  /** events.emit (server/events): outbox of webhook events. */
  events: EventOutbox;
  /** The DLP scanner behind the send path (server/dlp/dlp-port.ts). */
  dlp: DlpInspector;
  /** Addresses handled by another area instead of a mailbox (server/inbound/README.md). */
  inbound: InboundRoutes;
  /** Where the SMTP listener stores accepted mail. */
  delivery: DeliveryRepository;
  /** Received mail as the reading operations and the webmail read it. */
  mailboxMessages: MessageRepository;
  /** Outgoing mail (server/mail-sending/README.md): the send side, and what happens after. */
  sentMessages: SentMessageRepository;
  mailFeedback: DeliveryOutcomes & MessageFeedback;
  templates: TemplateRepository;
  /** `relay` of the messages the built-in relay (or the smarthost) takes. */
  relayName: string;
  certificates: CertificateRepository;
  /** Messenger bots (server/messenger): repository, Bot API client, keys. */
  messenger: MessengerContext;
  /** DLP policy and log (server/dlp). */
  dlpLog: DlpRepository;
}

/** `dnsPort` is where our own DNS server listens, the default resolver for readiness checks. */
export function createServices(config: ServerConfig, db: DatabaseSync, serverKey: Buffer, dnsPort: number, clock: Clock = systemClock): Services {
  const resolverAt = config.resolver.host ? config.resolver : { host: config.dns.host, port: dnsPort };
  const jobs = new JobQueue(db, clock);
  const mailboxMessages = new SqliteMessageRepository(db);
  const mailboxes = new CachedMailboxRepository(new SqliteMailboxRepository(db), otherWriterWatcher(db));
  const events = new EventOutbox(db, jobs, clock);
  const secrets = new SecretBox(serverKey);
  const outboundResolver = config.outboundResolver ? hostResolverAt([config.outboundResolver]) : systemResolver;
  const webhookDeliveries = deliveryEngine({
    store: new SqliteDeliveryStore(db, jobs),
    clock,
    send: (hook, delivery) => sendWebhook(hook.url, delivery.event, delivery.payload, secrets.open(hook.secretSealed), {
      development: config.allowHttpLoopbackWebhooks,
      timeoutMs: config.webhookTimeoutMs,
      resolve: outboundResolver,
    }),
  });
  const messenger = createMessenger(config, db, serverKey, { secrets, jobs, clock });
  const dlpLog = new SqliteDlpRepository(db);
  const services: Services = {
    config,
    db,
    projects: new SqliteProjectRepository(db),
    keys: new CachedKeyRepository(new SqliteKeyRepository(db), otherWriterWatcher(db)),
    limiter: new FixedWindowRateLimiter(),
    zones: new SqliteDnsRecordRepository(db),
    mailDomains: new SqliteMailDomainRepository(db, secrets),
    mailboxes,
    webmail: new SqliteWebmailRepository(db),
    messages: mailboxMessageStore(mailboxMessages),
    webhooks: new SqliteWebhookRepository(db, jobs),
    webhookDeliveries,
    secrets,
    // Short timeouts: a readiness check must not hold an API call for the resolver's defaults.
    resolver: createResolver({ servers: [`${resolverAt.host}:${resolverAt.port}`], timeoutMs: 1000, tries: 2 }),
    clock,
    jobs,
    jobHandlers: { [DELIVER_JOB]: webhookDeliveries.job, ...messengerJobHandlers(messenger) },
    events,
    dlp: new DlpScannerInspector({ repository: dlpLog, pool: new ScanPool({ threads: config.dlp.threads }), events, clock }),
    dlpLog,
    inbound: new InboundRoutes(),
    delivery: new ThreadedDeliveryRepository(db, config.dataDir, (projectId) => mailboxes.usageChanged(projectId)),
    mailboxMessages,
    sentMessages: new SqliteSentMessageRepository(db, jobs, clock),
    mailFeedback: new SqliteMessageOutcomes(db, events, clock),
    templates: new SqliteTemplateRepository(db),
    relayName: config.relay.smarthost?.host || config.relay.name || config.mailHost,
    certificates: new SqliteCertificateRepository(db, clock),
    messenger,
  };
  Object.assign(services.jobHandlers, mailJobHandlers({
    messages: services.sentMessages,
    outcomes: services.mailFeedback,
    mailDomains: services.mailDomains,
    relayName: services.relayName,
    clock,
    smtp: { resolver: services.resolver, port: config.relay.port, heloName: config.mailHost, allowLoopback: config.relay.allowLoopback, smarthost: config.relay.smarthost },
  }));
  Object.assign(services.jobHandlers, certificateJobs({ ...services, certs: services.certificates }));
  return services;
}
