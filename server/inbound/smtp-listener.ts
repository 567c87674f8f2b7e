// The inbound SMTP listener: the MX of hosted mail domains. Read top-down, a message goes
// through named steps: recipients are checked at RCPT TO (a route, a mailbox or group of a
// connected domain, else refused: never an open relay); at the end of DATA the bytes get our
// trace headers, are parsed, handed to routes, and stored in one transaction with their
// `mail.received` events, and only then does the sender get 250.
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import type { SmtpConfig } from "../config.ts";
import type { DnsResolver } from "../dns/resolver.ts";
import type { Clock } from "../jobs/clock.ts";
import type { DeliveredCopy, DeliveryRepository } from "./delivery-repository.ts";
import { parseForIndex, parseMessage, toStoredMessage } from "./parse-message.ts";
import { recipientRefusal } from "./recipient-check.ts";
import type { InboundRouteHandler, InboundRoutes } from "./routes.ts";
import { dmarcAction } from "./dmarc-policy.ts";
import { ConnectionsPerClient, SessionDeadlines, TOO_MANY_FROM_CLIENT } from "./client-limits.ts";
import { cachedResolve } from "./dns-cache.ts";
import { loadOrCreateTlsCertificate } from "./tls-certificate.ts";
import { traceHeaders, type Resolve } from "./trace-headers.ts";

export interface SmtpListenerDeps {
  config: SmtpConfig;
  mailHost: string;
  dataDir: string;
  delivery: DeliveryRepository;
  routes: InboundRoutes;
  resolver: DnsResolver;
  clock: Clock;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export interface SmtpListener {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** An SMTP reply: smtp-server sends `responseCode` and the message as the reply text. */
function reply(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startSmtpListener(deps: SmtpListenerDeps): Promise<SmtpListener> {
  const { config } = deps;
  const tls = await loadOrCreateTlsCertificate(deps.dataDir, deps.mailHost);
  const resolve = cachedResolve((name, rrtype) => deps.resolver.resolve(name, rrtype));
  const perClient = new ConnectionsPerClient(config.maxConnectionsPerClient);
  // A 421 closes the connection (smtp-server does so after sending it); the connection is
  // found by the id its session carries.
  const deadlines = new SessionDeadlines({ sessionMs: config.sessionTimeoutMs, dataMs: config.dataTimeoutMs }, (id, text) => {
    for (const connection of server.connections) if (connection.id === id) connection.send(421, text, false);
  });
  const server = new SMTPServer({
    name: deps.mailHost,
    banner: "platform inbound mail",
    key: tls.key,
    cert: tls.cert,
    size: config.maxMessageBytes,
    rejectOversized: true,
    maxRecipients: config.maxRecipients,
    maxClients: config.maxConnections,
    socketTimeout: config.idleTimeoutMs,
    // An MX takes mail for its own domains; there is nothing to log in to.
    disabledCommands: ["AUTH"],
    authOptional: true,
    // Reverse lookups would go to the system resolver and add latency to every connection.
    disableReverseLookup: true,
    logger: false,
    onConnect(session, callback) {
      if (!perClient.admit(session.remoteAddress, session.id)) return callback(reply(421, TOO_MANY_FROM_CLIENT));
      deadlines.start(session.id);
      callback();
    },
    onClose(session) {
      perClient.release(session.id);
      deadlines.end(session.id);
    },
    onRcptTo(address, _session, callback) {
      // A lookup that fails (the database away) is a temporary refusal: the sender tries again.
      checkRecipient(deps, address.address.toLowerCase()).then(
        (refusal) => callback(refusal ?? undefined),
        () => callback(reply(451, "4.3.0 temporary failure, try again later")),
      );
    },
    onData(stream, session, callback) {
      deadlines.dataStarted(session.id);
      receive(deps, resolve, stream, session, () => deadlines.dataEnded(session.id)).then(
        () => callback(null),
        // Every refusal is a reply chosen here; an unforeseen error is ours and temporary (451),
        // never smtp-server's default 450 with our internals as its text.
        (error: Error & { responseCode?: number }) => {
          if (error.responseCode) return callback(error);
          deps.log("inbound message failed", { error: error.message });
          callback(reply(451, "4.3.0 temporary failure, try again later"));
        },
      ).finally(() => deadlines.answered(session.id));
    },
  });
  server.on("error", (error) => deps.log("smtp listener error", { error: error.message }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return {
    host: config.host,
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.delivery.close?.();
    },
  };
}

/** The refusal for `rcpt` as an SMTP reply (recipient-check.ts decides), or null when it is accepted. */
async function checkRecipient(deps: SmtpListenerDeps, rcpt: string): Promise<Error | null> {
  const refusal = await recipientRefusal(deps.routes, (address) => deps.delivery.lookup(address), rcpt);
  return refusal && reply(refusal.code, refusal.text);
}

async function receive(deps: SmtpListenerDeps, resolve: Resolve, stream: SMTPServerDataStream, session: SMTPServerSession, dataEnded: () => void): Promise<void> {
  const raw = await readMessage(stream);
  dataEnded();
  if (stream.sizeExceeded) throw reply(552, `5.3.4 message exceeds the fixed maximum size of ${deps.config.maxMessageBytes} bytes`);
  const recipients = session.envelope.rcptTo.map((r: SMTPServerAddress) => r.address.toLowerCase());
  const receivedAt = new Date(deps.clock.now());
  const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
  const { raw: traced, dmarc } = await traceHeaders(raw, {
    remoteAddress: session.remoteAddress,
    helo: session.hostNameAppearsAs ?? "",
    mailFrom,
    recipients,
    secure: session.secure,
    sessionId: session.id,
    receivedAt,
  }, deps.mailHost, resolve);
  const policy = dmarcAction(dmarc);
  if (policy.action === "reject") throw reply(550, policy.text);
  const { routed, local } = await splitByRoute(deps.routes, recipients);
  // Route handlers get mailparser's whole answer; the store needs less (parseForIndex).
  const parsed = routed.size > 0 ? await parseOrRefuse(deps, () => parseMessage(traced)) : undefined;
  for (const [handler, rcpts] of routed) {
    try {
      await handler({ raw: traced, parsed: parsed!, mailFrom, recipients: rcpts, remoteAddress: session.remoteAddress, receivedAt });
    } catch (error) {
      deps.log("inbound route handler failed", { error: (error as Error).message });
      throw reply(451, "4.3.0 temporary failure, try again later");
    }
  }
  if (local.length === 0) return;

  const message = toStoredMessage(traced, parsed ?? (await parseOrRefuse(deps, () => parseForIndex(traced))), receivedAt.getTime(), local);
  message.quarantined = policy.action === "quarantine";
  let copies: DeliveredCopy[];
  try {
    copies = await deps.delivery.store(message, local);
  } catch (error) {
    deps.log("inbound store failed", { error: (error as Error).message });
    throw reply(451, "4.3.0 temporary failure storing the message, try again later");
  }
  // The recipients were mailboxes at RCPT TO; deleted since, or a group emptied since.
  if (copies.length === 0 && routed.size === 0) throw reply(550, "5.1.1 no recipient mailbox exists any more");
}

/**
 * A message over mailparser's own limits (a MIME node's header over 1 MB, more than 1,000 MIME
 * parts: mailsplit's EMAXLEN) will be refused the same way on every retry: 552 5.3.4, a
 * permanent refusal, so the sender bounces it now instead of retrying for days (a bare error
 * would be smtp-server's default 450). Anything else is ours and temporary: 451.
 */
async function parseOrRefuse<T>(deps: SmtpListenerDeps, parse: () => Promise<T>): Promise<T> {
  try {
    return await parse();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EMAXLEN") throw reply(552, `5.3.4 message refused: ${(error as Error).message.toLowerCase()}`);
    deps.log("inbound parse failed", { error: (error as Error).message });
    throw reply(451, "4.3.0 temporary failure, try again later");
  }
}

/** The whole message, or an error when the client went away before the final <CRLF>.<CRLF>. */
async function readMessage(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    // Past the limit the rest is read and dropped: the reply is 552 either way.
    if (stream.sizeExceeded) continue;
    chunks.push(chunk);
    kept += chunk.length;
  }
  return Buffer.concat(chunks, kept);
}

async function splitByRoute(routes: InboundRoutes, recipients: string[]) {
  const routed = new Map<InboundRouteHandler, string[]>();
  const local: string[] = [];
  for (const rcpt of recipients) {
    const handler = await routes.find(rcpt);
    if (!handler) local.push(rcpt);
    else routed.set(handler, [...(routed.get(handler) ?? []), rcpt]);
  }
  return { routed, local };
}
