// The HTTP application: the generated routes with this server's handlers and `authorize`, plus
// the pages around the API (/openapi.json, /docs, /webmail).
import fastify, { type FastifyInstance } from "fastify";
import { clientErrorHandler } from "../generated/server/method-not-allowed.ts";
import { registerRoutes } from "../generated/server/register-routes.ts";
import type { AuthContext } from "./auth/auth-context.ts";
import { createAuthorize } from "./auth/authorize.ts";
import { certificateHandlers } from "./certificates/handlers.ts";
import { dnsRecordHandlers } from "./dns-records/handlers.ts";
import { dlpHandlers } from "./dlp/handlers.ts";
import { registerHealth } from "./http/health.ts";
import { registerCors } from "./http/cors.ts";
import { registerDocs, type DocsOptions } from "./http/docs.ts";
import type { loggerOptions } from "./http/log-redaction.ts";
import { groupHandlers } from "./groups/handlers.ts";
import { mailboxReadingHandlers } from "./mailbox-reading/handlers.ts";
import { mailboxHandlers } from "./mailboxes/handlers.ts";
import { mailDomainDeps, mailDomainHandlers } from "./maildomains/handlers.ts";
import { wireMailEngagement } from "./mail-sending/engagement/wire.ts";
import { messengerHandlers } from "./messenger/handlers.ts";
import { registerMessengerHooks } from "./messenger/hook-routes.ts";
import { mailSendingHandlers } from "./mail-sending/handlers.ts";
import type { Services } from "./services.ts";
import { registerWebmailPages } from "./webmail/pages.ts";
import { webmailHandlers } from "./webmail/handlers.ts";
import { suppressionHandlers } from "./suppressions/handlers.ts";
import { webhookHandlers } from "./webhooks/handlers.ts";
import { withHttpWebhookUrls } from "./webhooks/webhook-url.ts";

export interface AppOptions {
  openapi: object;
  /** Base URL browsers reach this server at; known only after listen when the port is 0. */
  publicUrl: () => string;
  logger?: boolean | ReturnType<typeof loggerOptions>;
  docs?: DocsOptions;
  /** /readyz: whether every listener is bound and the instance is not closing (platform.ts). */
  serving?: () => boolean;
}

export async function buildApp(s: Services, options: AppOptions): Promise<FastifyInstance> {
  const app = fastify({
    logger: options.logger ?? false,
    // Attachments of up to 15 MB arrive base64-encoded inside JSON (4/3 larger).
    bodyLimit: 25 * 1024 * 1024,
    return503OnClosing: true,
    // request.ip (logs, anything per address) is the right-most X-Forwarded-For hop that is not a
    // configured proxy; with none configured the header is ignored (anyone could write it).
    trustProxy: s.config.trustedProxies.length ? s.config.trustedProxies : false,
    // Methods Node's parser refuses still get 405 or 404 with the error body (decision E4).
    clientErrorHandler,
  });
  registerCors(app, s.config.corsOrigins);
  const limits = s.config.limits;
  // The hook URLs given to the messenger platform are on the address clients reach us at.
  s.messenger.publicUrl = options.publicUrl;
  const mailboxDeps = { mailboxes: s.mailboxes, mailDomains: s.mailDomains, limits };
  // Tracking, unsubscribe and feedback: its hook goes into the send path below.
  const engagement = await wireMailEngagement(app, s, options.publicUrl);
  await registerRoutes<AuthContext>(
    app,
    {
      ...mailboxHandlers(mailboxDeps),
      ...groupHandlers(mailboxDeps),
      ...mailboxReadingHandlers({ mailboxes: s.mailboxes, messages: s.mailboxMessages }),
      ...mailDomainHandlers({ ...mailDomainDeps(s), limits }),
      ...dnsRecordHandlers({ zones: s.zones, limits }),
      ...webmailHandlers({ mailboxes: s.mailboxes, webmail: s.webmail, publicUrl: options.publicUrl, clock: s.clock }),
      ...mailSendingHandlers({
        backend: s.backend, messages: s.sentMessages, mailDomains: s.mailDomains, templates: s.templates, hooks: engagement.hooks, returnPaths: s.returnPaths, dlp: s.dlp, clock: s.clock, relayName: s.relayName,
      }),
      ...webhookHandlers({ webhooks: s.webhooks, secrets: s.secrets, deliveries: s.webhookDeliveries, allowHttpLoopback: s.config.allowHttpLoopbackWebhooks, limits, clock: s.clock }),
      ...certificateHandlers({ certs: s.certificates, zones: s.zones, backend: s.backend, secrets: s.secrets, clock: s.clock, issuer: s.config.certificates.issuer, limits }),
      ...messengerHandlers(s.messenger),
      ...dlpHandlers({ dlp: s.dlpLog }),
      ...suppressionHandlers({ suppressions: s.suppressions }),
    },
    {
      authorize: createAuthorize({ keys: s.keys, limiter: s.limiter }),
      // Development only: http:// webhook receivers, which the contract (production) refuses.
      requestSchemas: s.config.allowHttpLoopbackWebhooks ? withHttpWebhookUrls : undefined,
    },
  );
  registerHealth(app, { serving: options.serving ?? (() => true), store: s.backend.store });
  await registerDocs(app, options.openapi, options.docs);
  await registerMessengerHooks(app, s.messenger);
  await registerWebmailPages(app, {
    webmail: s.webmail,
    messages: s.messages,
    clock: s.clock,
    secureCookies: () => options.publicUrl().startsWith("https:"),
  });
  return app;
}
