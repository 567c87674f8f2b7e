// The inbound SMTP listener: the MX of hosted mail domains. Read top-down, a message goes
// through named steps: recipients are checked at RCPT TO (a route, a mailbox or group of a
// connected domain, else refused: never an open relay); at the end of DATA the bytes get our
// trace headers, are parsed, handed to routes, and stored in one transaction with their
// `mail.received` events, and only then does the sender get 250.
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import type { SmtpConfig } from "../config.ts";
import { ConnectionsPerClient, SessionDeadlines, TOO_MANY_FROM_CLIENT } from "./client-limits.ts";
import { deliverInbound, refusalOf, smtpReply, type InboundDeliveryDeps } from "./inbound-delivery.ts";
import { loadOrCreateTlsCertificate } from "./tls-certificate.ts";

export interface SmtpListenerDeps {
  config: SmtpConfig;
  dataDir: string;
  /** The delivery path this listener shares with the relay's local transport. */
  inbound: InboundDeliveryDeps;
}

export interface SmtpListener {
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startSmtpListener(deps: SmtpListenerDeps): Promise<SmtpListener> {
  const { config, inbound } = deps;
  const tls = await loadOrCreateTlsCertificate(deps.dataDir, inbound.mailHost);
  const perClient = new ConnectionsPerClient(config.maxConnectionsPerClient);
  // A 421 closes the connection (smtp-server does so after sending it); the connection is
  // found by the id its session carries.
  const deadlines = new SessionDeadlines({ sessionMs: config.sessionTimeoutMs, dataMs: config.dataTimeoutMs }, (id, text) => {
    for (const connection of server.connections) if (connection.id === id) connection.send(421, text, false);
  });
  const server = new SMTPServer({
    name: inbound.mailHost,
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
    // Only the configured balancers may name another client (a PROXY v1 header); from them the
    // header is required, so remoteAddress is the sender's before onConnect's per-client limit.
    useProxy: config.proxyProtocolFrom.length ? config.proxyProtocolFrom : false,
    logger: false,
    onConnect(session, callback) {
      if (!perClient.admit(session.remoteAddress, session.id)) return callback(smtpReply(421, TOO_MANY_FROM_CLIENT));
      deadlines.start(session.id);
      callback();
    },
    onClose(session) {
      perClient.release(session.id);
      deadlines.end(session.id);
    },
    onRcptTo(address, _session, callback) {
      // A lookup that fails (the database away) is a temporary refusal: the sender tries again.
      refusalOf(inbound, address.address.toLowerCase()).then(
        (refusal) => callback(refusal ? smtpReply(refusal.code, refusal.text) : undefined),
        () => callback(smtpReply(451, "4.3.0 temporary failure, try again later")),
      );
    },
    onData(stream, session, callback) {
      deadlines.dataStarted(session.id);
      receive({ ...inbound, config }, stream, session, () => deadlines.dataEnded(session.id)).then(
        () => callback(null),
        // Every refusal is a reply chosen here; an unforeseen error is ours and temporary (451),
        // never smtp-server's default 450 with our internals as its text.
        (error: Error & { responseCode?: number }) => {
          if (error.responseCode) return callback(error);
          inbound.log("inbound message failed", { error: error.message });
          callback(smtpReply(451, "4.3.0 temporary failure, try again later"));
        },
      ).finally(() => deadlines.answered(session.id));
    },
  });
  server.on("error", (error) => inbound.log("smtp listener error", { error: error.message }));
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
      // The store stays open: the relay's local transport writes through it until the worker stops.
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function receive(deps: InboundDeliveryDeps & { config: SmtpConfig }, stream: SMTPServerDataStream, session: SMTPServerSession, dataEnded: () => void): Promise<void> {
  const raw = await readMessage(stream);
  dataEnded();
  if (stream.sizeExceeded) throw smtpReply(552, `5.3.4 message exceeds the fixed maximum size of ${deps.config.maxMessageBytes} bytes`);
  await deliverInbound(deps, raw, {
    remoteAddress: session.remoteAddress,
    helo: session.hostNameAppearsAs ?? "",
    mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
    recipients: session.envelope.rcptTo.map((r: SMTPServerAddress) => r.address.toLowerCase()),
    secure: session.secure,
    sessionId: session.id,
  });
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
