// The routing hook: addresses that are not mailboxes but belong to another part of the server
// (the outgoing side's bounce and feedback addresses, VERP) are registered here, and the
// listener hands their messages to the registered handler instead of storing them. Checked at
// RCPT TO before the mailbox lookup, so a route may claim an address on any domain.
import type { ParsedMail } from "mailparser";

export interface InboundMessage {
  /** The message as stored would be: our Received and Authentication-Results first. */
  raw: Buffer;
  parsed: ParsedMail;
  /** MAIL FROM, "" for the null sender (bounces arrive with it). */
  mailFrom: string;
  /** The envelope recipients this route matched, lowercased. */
  recipients: string[];
  remoteAddress: string;
  receivedAt: Date;
}

/** Synchronous, or a promise where the answer is in PostgreSQL (a message's sender domain). */
export type InboundRouteMatch = (rcpt: string) => boolean | Promise<boolean>;
export type InboundRouteHandler = (message: InboundMessage) => Promise<void>;

interface Route {
  match: InboundRouteMatch;
  handler: InboundRouteHandler;
}

export class InboundRoutes {
  private readonly routes: Route[] = [];

  /**
   * Claims the recipients `match` accepts (given lowercased). The handler runs once per message
   * with the recipients it matched, before the sender gets 250; if it rejects, the sender gets
   * 451 and retries later, so a handler must be idempotent (at least once). Returns an
   * unregister function.
   */
  route(match: InboundRouteMatch, handler: InboundRouteHandler): () => void {
    const entry = { match, handler };
    this.routes.push(entry);
    return () => {
      const at = this.routes.indexOf(entry);
      if (at >= 0) this.routes.splice(at, 1);
    };
  }

  /** The first route claiming `rcpt`, in registration order. */
  async find(rcpt: string): Promise<InboundRouteHandler | undefined> {
    for (const r of [...this.routes]) if (await r.match(rcpt)) return r.handler;
    return undefined;
  }
}
