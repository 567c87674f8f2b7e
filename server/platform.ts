// Starts the whole platform: database (SQLite in DATA_DIR, or PostgreSQL when DATABASE_URL is set),
// DNS server, HTTP server, SMTP listener, job worker. Used by `npm start` and by the tests, so
// tests run the same wiring as production, on ports chosen by the kernel.
import type { FastifyInstance } from "fastify";
import { mkdirSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";
import { buildApp } from "./app.ts";
import { loadContract } from "./auth/scopes.ts";
import { prepareCertificates } from "./certificates/setup.ts";
import type { ServerConfig } from "./config.ts";
import { openDatabase } from "./db/database.ts";
import { trackConnections } from "./http/graceful-close.ts";
import type { DocsOptions } from "./http/docs.ts";
import type { Writable } from "node:stream";
import { loggerOptions } from "./http/log-redaction.ts";
import { startDnsServer, type DnsServer } from "./dns/authoritative-server.ts";
import type { Clock } from "./jobs/clock.ts";
import { createWorker, type Worker } from "./jobs/worker.ts";
import { startSmtpListener, type SmtpListener } from "./inbound/smtp-listener.ts";
import { scheduleMissingChecks } from "./maildomains/verification-jobs.ts";
import { listening, StartupError } from "./startup-errors.ts";
import { loadServerKey } from "./secrets/server-key.ts";
import { createServices, storeContext, type Services, type StoreServices } from "./services.ts";
import { sqliteStore } from "./db/sqlite-services.ts";
import { openPostgres } from "./db/postgres/migrations.ts";
import { postgresStore } from "./db/postgres/pg-services.ts";

export interface Platform {
  app: FastifyInstance;
  services: Services;
  /** The SQLite file's connection; absent on PostgreSQL (`services.backend` serves both). */
  db: DatabaseSync | undefined;
  dns: DnsServer | undefined;
  /** The inbound SMTP listener; `smtp.port` is the bound port (config port 0 picks one). */
  smtp: SmtpListener | undefined;
  url: string;
  openapi: Record<string, unknown>;
  /** Runs the job queue; tests with a manual clock call `worker.drain()` after moving it. */
  worker: Worker;
  close(): Promise<void>;
}

// How long requests still running at shutdown may take to finish before their connections are cut.
const SHUTDOWN_GRACE_MS = 5_000;

export interface PlatformOptions {
  logger?: boolean;
  /** Log (as `logger: true` does) to this stream instead of stdout: tests read what an operator would. */
  logTo?: Writable;
  /** Injected by tests to run schedules (retries, sendAt, renewals) without waiting. */
  clock?: Clock;
  /** Off in tests that drive the queue themselves with `worker.drain()`. */
  runWorker?: boolean;
  /** /docs: build the reference when missing or stale (npm start), and where it lives. */
  docs?: DocsOptions;
}

export async function startPlatform(config: ServerConfig, options: PlatformOptions = {}): Promise<Platform> {
  const serverKey = loadServerKey(config.dataDir, process.env, { shared: Boolean(config.databaseUrl) });
  const context = storeContext(config, serverKey, options.clock);
  const { db, store } = await openStore(config, context);
  const openapi = loadContract();
  let dns: DnsServer | undefined;
  try {
    dns = config.dns.enabled
      ? await listening({ hostVar: "DNS_HOST", portVar: "DNS_PORT", host: config.dns.host, port: config.dns.port }, () =>
          startDnsServer({
            host: config.dns.host,
            port: config.dns.port,
            repository: store.zones,
            nameservers: () => config.nameServers,
            hostmaster: (zone) => `hostmaster.${zone}`,
          }),
        )
      : undefined;
  } catch (error) {
    await store.backend.close();
    throw error;
  }
  // The background paths warn through the server's log, which exists only once the app is built.
  let warn: (message: string, fields?: Record<string, unknown>) => void = () => {};
  const services = createServices({ ...context, serverKey, dnsPort: dns?.udpPort ?? config.dns.port, warn: (message, fields) => warn(message, fields) }, store);
  await prepareCertificates({ ...services, certs: services.certificates });
  // Every open mail-domain claim has its periodic ownership check on the queue (decision O4).
  await scheduleMissingChecks({ ...services, now: () => services.clock.now() });
  // Every listener is bound before any is announced (the HTTP one logs "listening" as it binds):
  // a busy SMTP port stops the start before HTTP was ever up (issue 42 item 4).
  const smtp = config.smtp.enabled
    ? await listening({ hostVar: "SMTP_HOST", portVar: "SMTP_PORT", host: config.smtp.host, port: config.smtp.port }, () =>
        startSmtpListener({ config: config.smtp, dataDir: config.dataDir, inbound: services.inboundDelivery }),
      ).catch(async (error: unknown) => {
        await services.dlp.close();
        await services.delivery.close?.();
        await dns?.close();
        await services.backend.close();
        throw error;
      })
    : undefined;
  let url = "";
  let serving = false;
  const app = await buildApp(services, {
    openapi,
    publicUrl: () => config.publicUrl || url,
    docs: options.docs,
    logger: options.logger || options.logTo ? loggerOptions(config.logLevel, options.logTo) : false,
    serving: () => serving,
  });
  warn = (message, fields) => app.log.warn(fields ?? {}, message);
  const connections = trackConnections(app.server, SHUTDOWN_GRACE_MS);
  const address = await listening({ hostVar: "HOST", portVar: "PORT", host: config.host, port: config.port }, () =>
    app.listen({ host: config.host, port: config.port }),
  ).catch(async (error: unknown) => {
    await smtp?.close();
    await Promise.all([dns?.close(), services.dlp.close()]);
    await services.delivery.close?.();
    await services.backend.close();
    throw error;
  });
  url = address.replace("[::1]", "127.0.0.1");
  const worker = createWorker({
    queue: services.backend.queue,
    clock: services.clock,
    handlers: services.jobHandlers,
    log: (message, fields) => app.log.warn(fields ?? {}, message),
  });
  if (options.runWorker ?? true) worker.start();
  serving = true;
  return {
    app, services, db, dns, smtp, url, openapi, worker,
    async close() {
      // Readiness answers 503 from now on: balancers stop sending while requests drain.
      serving = false;
      await smtp?.close();
      const done = connections.begin();
      await app.close();
      done();
      // No request is left to scan: end the DLP threads (and the OCR recognizers they hold).
      await services.dlp.close();
      await worker.stop();
      // After the worker: the relay's local transport stores through it too.
      await services.delivery.close?.();
      await dns?.close();
      await services.backend.close();
    },
  };
}

/** SQLite in DATA_DIR by default; PostgreSQL, migrated (under an advisory lock), when DATABASE_URL is set. */
async function openStore(config: ServerConfig, context: ReturnType<typeof storeContext>): Promise<{ db: DatabaseSync | undefined; store: StoreServices }> {
  if (!config.databaseUrl) {
    const db = openDatabase(config.dataDir);
    return { db, store: await sqliteStore(db, context) };
  }
  // DATA_DIR still holds what is per instance: the SMTP listener's STARTTLS certificate.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const pg = await openPostgres(config.databaseUrl).catch((error: Error & { code?: string }) => {
    // Not reachable or refused: the setting is wrong or the database is down, which the operator
    // fixes; the URL itself is not printed (it holds the password).
    if (error.code && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|28P01|28000|3D000)$/.test(error.code)) {
      throw new StartupError(`DATABASE_URL: cannot open the database (${error.code}: ${error.message.replace(config.databaseUrl, "<DATABASE_URL>")})`);
    }
    throw error;
  });
  try {
    return { db: undefined, store: await postgresStore(pg, context) };
  } catch (error) {
    await pg.close();
    throw error;
  }
}
