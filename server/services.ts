// What every handler sees, on either store. The store's own composition builds its repositories
// and its Backend (db/sqlite-services.ts for the embedded default, db/postgres/pg-services.ts when
// DATABASE_URL is set); this file adds what does not depend on the store: adapters, the resolver,
// secrets, the DLP scanner pool, the webhook delivery engine, and the job handlers of each area.
import type { RateLimiter } from "./auth/rate-limiter.ts";
import type { KeyRepository } from "./auth/key-repository.ts";
import type { CertificateRepository } from "./certificates/certificate-repository.ts";
import { certificateJobs } from "./certificates/setup.ts";
import type { ServerConfig } from "./config.ts";
import type { Backend } from "./db/backend.ts";
import { createResolver, type DnsResolver } from "./dns/resolver.ts";
import type { DlpInspector } from "./dlp/dlp-port.ts";
import { DlpScannerInspector } from "./dlp/dlp-inspector.ts";
import type { DlpRepository } from "./dlp/dlp-repository.ts";
import { ScanPool } from "./dlp/scan-pool.ts";
import { systemClock, type Clock } from "./jobs/clock.ts";
import type { DeliveryRepository } from "./inbound/delivery-repository.ts";
import { InboundRoutes } from "./inbound/routes.ts";
import { cachedResolve } from "./inbound/dns-cache.ts";
import type { InboundDeliveryDeps } from "./inbound/inbound-delivery.ts";
import { localTransport } from "./mail-sending/local-transport.ts";
import { SANDBOX_JOB, sandboxReactionHandler } from "./mail-sending/sandbox/sandbox-reactions.ts";
import type { MessageRepository } from "./mailbox-reading/message-repository.ts";
import type { JobHandler } from "./jobs/worker.ts";
import type { DnsRecordRepository } from "./dns/zone-repository.ts";
import type { MailboxRepository } from "./mailboxes/mailbox-repository.ts";
import type { BotRepository } from "./messenger/bot-repository.ts";
import { createMessenger, messengerJobHandlers } from "./messenger/create-messenger.ts";
import type { MessengerContext } from "./messenger/messenger-context.ts";
import type { MailDomainRepository } from "./maildomains/maildomain-repository.ts";
import { verificationJobHandlers } from "./maildomains/verification-jobs.ts";
import type { ProjectRepository } from "./projects/project-repository.ts";
import { SecretBox } from "./secrets/secret-box.ts";
import type { MailOutbox } from "./mail-sending/mail-outbox.ts";
import type { DeliveryOutcomes, MessageFeedback, SentMessageRepository } from "./mail-sending/message-repository.ts";
import { mailJobHandlers } from "./mail-sending/relay.ts";
import { MESSAGE_TOKEN_KEY_INFO, MessageTokens } from "./mail-sending/tokens/message-token.ts";
import { ReturnPaths } from "./mail-sending/verp.ts";
import type { TemplateRepository } from "./mail-sending/template-repository.ts";
import { mailboxMessageStore, type MessageStore } from "./webmail/message-store.ts";
import type { WebmailRepository } from "./webmail/webmail-repository.ts";
import { sendWebhook } from "./adapters/webhook-sender.ts";
import { resolverAt as hostResolverAt, systemResolver } from "./adapters/host-resolver.ts";
import { DELIVER_JOB } from "./events/event-outbox.ts";
import { deliveryEngine, type DeliveryEngine } from "./webhooks/delivery-engine.ts";
import { SigningKeys } from "./webhooks/signing-keys.ts";
import type { DeliveryStore } from "./webhooks/delivery-store.ts";
import type { WebhookRepository } from "./webhooks/webhook-repository.ts";
import type { SuppressionRepository } from "./suppressions/suppression-repository.ts";

/**
 * What a store's composition gives: its repositories (caches included) and its Backend. Built by
 * db/sqlite-services.ts or db/postgres/pg-services.ts; nothing else here knows the store.
 */
export interface StoreServices {
  backend: Backend;
  projects: ProjectRepository;
  keys: KeyRepository;
  limiter: RateLimiter;
  zones: DnsRecordRepository;
  mailDomains: MailDomainRepository;
  mailboxes: MailboxRepository;
  webmail: WebmailRepository;
  webhooks: WebhookRepository;
  /** What the webhook delivery engine loads and records attempts through. */
  webhookStore: DeliveryStore;
  /** Where the SMTP listener stores accepted mail (each copy's mail.received in its transaction). */
  delivery: DeliveryRepository;
  mailboxMessages: MessageRepository;
  sentMessages: SentMessageRepository;
  mailFeedback: DeliveryOutcomes & MessageFeedback;
  /** Outgoing mail's jobs and events, in the writer's transaction (mail-sending/mail-outbox.ts). */
  mailOutbox: MailOutbox;
  templates: TemplateRepository;
  certificates: CertificateRepository;
  dlpLog: DlpRepository;
  /** The suppression list users see and change (server/suppressions, decision SU1). */
  suppressions: SuppressionRepository;
  /** Messenger bots, presets and creation links (server/messenger). */
  bots: BotRepository;
}

export interface Services extends StoreServices {
  config: ServerConfig;
  messages: MessageStore;
  /** The webhook delivery engine: `webhook.deliver` jobs and redelivery (server/webhooks/README.md). */
  webhookDeliveries: DeliveryEngine;
  secrets: SecretBox;
  resolver: DnsResolver;
  clock: Clock;
  /** Areas register the handler of each job kind they enqueue; platform.ts runs them on `backend.queue`. */
  jobHandlers: Record<string, JobHandler>;
  /** The DLP scanner behind the send path (server/dlp/dlp-port.ts). */
  dlp: DlpInspector;
  /** Addresses handled by another area instead of a mailbox (server/inbound/README.md). */
  inbound: InboundRoutes;
  /** The MX's delivery path, shared by the SMTP listener and the relay's local transport. */
  inboundDelivery: InboundDeliveryDeps;
  /** `relay` of the messages the built-in relay (or the smarthost) takes. */
  relayName: string;
  /** Signed tokens of tracking and unsubscribe URLs and of VERP addresses (decisions T3, T6). */
  messageTokens: MessageTokens;
  /** The signed VERP envelope senders: made by the send path, checked by the feedback route. */
  returnPaths: ReturnPaths;
  /** Messenger bots (server/messenger): repository, Bot API client, keys. */
  messenger: MessengerContext;
}

/** What a store's composition needs from the common part. */
export interface StoreContext {
  config: ServerConfig;
  secrets: SecretBox;
  clock: Clock;
}

/** What createServices needs beside the store; `secrets` and `clock` are the ones the store was built with. */
export interface CommonContext extends StoreContext {
  serverKey: Buffer;
  /** Where our own DNS server listens: the default resolver for readiness checks. */
  dnsPort: number;
  /** Warnings of the background paths (relay, inbound); platform.ts points it at the server's log. */
  warn?: (message: string, fields?: Record<string, unknown>) => void;
}

/** The context a store is built from: the server key's SecretBox and the clock (default: the system's). */
export function storeContext(config: ServerConfig, serverKey: Buffer, clock: Clock = systemClock): StoreContext {
  return { config, secrets: new SecretBox(serverKey), clock };
}

/** `s` comes from sqliteStore or postgresStore, built with the same context. */
export function createServices(context: CommonContext, s: StoreServices): Services {
  const { config, secrets, clock, serverKey, dnsPort } = context;
  const warn = context.warn ?? (() => {});
  const resolverAt = config.resolver.host ? config.resolver : { host: config.dns.host, port: dnsPort };
  const outboundResolver = config.outboundResolver ? hostResolverAt([config.outboundResolver]) : systemResolver;
  const signingKeys = new SigningKeys((sealed) => secrets.open(sealed));
  const webhookDeliveries = deliveryEngine({
    store: s.webhookStore,
    clock,
    send: (hook, delivery) => sendWebhook(hook.url, { id: delivery.eventId, type: delivery.event, body: delivery.payload }, signingKeys.get(hook.secretSealed), clock.now(), {
      development: config.allowHttpLoopbackWebhooks,
      timeoutMs: config.webhookTimeoutMs,
      resolve: outboundResolver,
    }),
  });
  // Short timeouts: a readiness check must not hold an API call for the resolver's defaults.
  const resolver = createResolver({ servers: [`${resolverAt.host}:${resolverAt.port}`], timeoutMs: 1000, tries: 2 });
  const inbound = new InboundRoutes();
  const inboundDelivery: InboundDeliveryDeps = {
    mailHost: config.mailHost,
    delivery: s.delivery,
    routes: inbound,
    resolve: cachedResolve((name, rrtype) => resolver.resolve(name, rrtype)),
    clock,
    log: warn,
  };
  const messenger = createMessenger(config, s.bots, s.backend, serverKey, { secrets, clock });
  const messageTokens = new MessageTokens(secrets.deriveKey(MESSAGE_TOKEN_KEY_INFO));
  const returnPaths = new ReturnPaths(messageTokens);
  const services: Services = {
    ...s,
    config,
    messages: mailboxMessageStore(s.mailboxMessages),
    webhookDeliveries,
    secrets,
    resolver,
    clock,
    jobHandlers: { [DELIVER_JOB]: webhookDeliveries.job, ...messengerJobHandlers(messenger) },
    dlp: new DlpScannerInspector({ repository: s.dlpLog, pool: new ScanPool({ threads: config.dlp.threads }), backend: s.backend, clock }),
    inbound,
    inboundDelivery,
    relayName: config.relay.smarthost?.host || config.relay.name || config.mailHost,
    messageTokens,
    returnPaths,
    messenger,
  };
  Object.assign(services.jobHandlers, mailJobHandlers({
    messages: services.sentMessages,
    outcomes: services.mailFeedback,
    mailDomains: services.mailDomains,
    relayName: services.relayName,
    returnPaths,
    clock,
    log: warn,
    local: localTransport(services.inboundDelivery, config.mailHost),
    jobs: s.mailOutbox,
    smtp: { resolver: services.resolver, port: config.relay.port, heloName: config.mailHost, allowLoopback: config.relay.allowLoopback, smarthost: config.relay.smarthost },
  }));
  services.jobHandlers[SANDBOX_JOB] = sandboxReactionHandler({ messages: services.sentMessages, feedback: services.mailFeedback, inbound: inboundDelivery, returnPaths: services.returnPaths, clock });
  Object.assign(services.jobHandlers, certificateJobs({ ...services, certs: services.certificates }));
  Object.assign(services.jobHandlers, verificationJobHandlers({
    mailDomains: services.mailDomains, zones: services.zones, resolver: services.resolver, backend: services.backend, now: () => clock.now(),
  }));
  return services;
}
