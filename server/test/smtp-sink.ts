// A loopback SMTP server standing in for a recipient's MX (smtp-server, STARTTLS offered with its
// built-in certificate). Recipients can be refused per address to play 5xx and 4xx servers.
import { once } from "node:events";
import { SMTPServer } from "smtp-server";

export interface SinkMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  secure: boolean;
}

export interface SmtpSink {
  port: number;
  messages: SinkMessage[];
  /** Answer RCPT TO of an address with this code and text (e.g. 550 or 451); undefined accepts. */
  refuse: (rcpt: string) => { code: number; text: string } | undefined;
  /** While set, DATA is answered only once it resolves: a slow MX that keeps deliveries in flight. */
  gate: Promise<void> | undefined;
  close(): Promise<void>;
}

export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const sink: SmtpSink = { port: 0, messages: [], refuse: () => undefined, gate: undefined, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = sink.refuse(address.address);
      if (!refusal) return callback();
      const error = new Error(refusal.text) as Error & { responseCode: number };
      error.responseCode = refusal.code;
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        sink.messages.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
        });
        const answer = () => callback(null, `Ok: queued as sink${sink.messages.length}`);
        if (sink.gate) void sink.gate.then(answer);
        else answer();
      });
    },
  });
  // A client that vanishes mid-session (the platform killed with kill -9) resets its connection;
  // smtp-server reports that as an "error" event, which is the client's doing, not the sink's.
  server.on("error", (error: Error & { code?: string }) => {
    if (error.code !== "ECONNRESET" && error.code !== "EPIPE") throw error;
  });
  server.listen(port, "127.0.0.1");
  await once(server.server, "listening");
  sink.port = (server.server.address() as { port: number }).port;
  sink.close = () => new Promise((resolve) => server.close(() => resolve()));
  return sink;
}
