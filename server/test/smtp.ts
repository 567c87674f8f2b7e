// Sending to the platform's inbound listener from tests, the way any MTA would: nodemailer over
// loopback, STARTTLS with the listener's self-signed certificate accepted.
import net from "node:net";
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";

export function smtpTransport(port: number, options: Partial<SMTPTransport.Options> = {}) {
  return nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, tls: { rejectUnauthorized: false }, ...options });
}

export async function sendTo(port: number, mail: Mail.Options): Promise<SMTPTransport.SentMessageInfo> {
  const transport = smtpTransport(port);
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

/**
 * A raw SMTP conversation: writes `lines` as given (pipelined when several) and resolves with
 * everything the server answered once it closed the connection or `until` matched the replies.
 */
export function rawSmtp(port: number, chunks: (string | Buffer)[], until: RegExp = /^221 /m): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let replies = "";
    let sent = false;
    socket.on("data", (data) => {
      replies += data.toString("latin1");
      if (!sent && /^220 /m.test(replies)) {
        sent = true;
        for (const chunk of chunks) socket.write(chunk);
      }
      if (sent && until.test(replies)) socket.end();
    });
    socket.on("close", () => resolve(replies));
    socket.on("error", reject);
  });
}

/**
 * A raw SMTP client driven step by step, from `localAddress` (127.0.0.2, 127.0.0.3... act as
 * distinct clients): every reply it got, and whether the server closed it.
 */
export class SmtpClient {
  readonly socket: net.Socket;
  replies = "";
  closed = false;
  private readonly waiters: (() => void)[] = [];

  constructor(port: number, localAddress = "127.0.0.1") {
    this.socket = net.connect({ port, host: "127.0.0.1", localAddress });
    this.socket.on("data", (d) => {
      this.replies += d.toString("latin1");
      this.wake();
    });
    this.socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on("error", () => undefined);
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `test` holds (checked on every reply and on close). */
  async until(test: (c: SmtpClient) => boolean): Promise<void> {
    while (!test(this)) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  write(text: string) {
    if (!this.socket.destroyed) this.socket.write(text);
  }
}
