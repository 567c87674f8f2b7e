// Open SMTP sessions kept between messages to the same server (address, port and name), as MTAs
// and nodemailer's pool do: a TLS handshake per message would cost more than the message. A
// session goes back after a message unless it has carried MAX_MESSAGES, and closes after
// IDLE_MS unused; one that the server dropped meanwhile is simply replaced.
import type SMTPConnection from "nodemailer/lib/smtp-connection";

const MAX_MESSAGES = 100;
const IDLE_MS = 5_000;

interface Idle {
  connection: SMTPConnection;
  timer: NodeJS.Timeout;
}

export class ConnectionCache {
  private readonly idle = new Map<string, Idle[]>();
  private readonly sent = new WeakMap<SMTPConnection, number>();

  take(key: string): SMTPConnection | undefined {
    const list = this.idle.get(key);
    while (list?.length) {
      const { connection, timer } = list.pop()!;
      clearTimeout(timer);
      if (!(connection as unknown as { _destroyed?: boolean })._destroyed) return connection;
    }
    return undefined;
  }

  give(key: string, connection: SMTPConnection): void {
    const count = (this.sent.get(connection) ?? 0) + 1;
    this.sent.set(connection, count);
    if (count >= MAX_MESSAGES) return void connection.quit();
    const list = this.idle.get(key) ?? [];
    this.idle.set(key, list);
    const entry: Idle = {
      connection,
      timer: setTimeout(() => {
        list.splice(list.indexOf(entry), 1);
        connection.quit();
      }, IDLE_MS).unref(),
    };
    list.push(entry);
  }
}
