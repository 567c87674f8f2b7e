// What happens to a message once the MX has taken its bytes, whoever handed them over: the SMTP
// listener at the end of DATA, or the built-in relay for a recipient whose mailbox is here
// (server/mail-sending/local-transport.ts). One path for both, so local mail gets exactly what
// mail from another server gets: our trace headers (Received, SPF/DKIM/DMARC verdicts), the
// routes' handlers, and one durable transaction storing every mailbox's copy with its
// `mail.received` event. Refusals are SMTP replies (`responseCode`), as the listener sends them.
import type { Clock } from "../jobs/clock.ts";
import type { DeliveredCopy, DeliveryRepository } from "./delivery-repository.ts";
import { parseForIndex, parseMessage, toStoredMessage } from "./parse-message.ts";
import { recipientRefusal, type Refusal } from "./recipient-check.ts";
import type { InboundRouteHandler, InboundRoutes } from "./routes.ts";
import { dmarcAction } from "./dmarc-policy.ts";
import { traceHeaders, type Envelope, type Resolve } from "./trace-headers.ts";

export interface InboundDeliveryDeps {
  mailHost: string;
  delivery: DeliveryRepository;
  routes: InboundRoutes;
  /** The resolver mail authentication asks (cached: dns-cache.ts). */
  resolve: Resolve;
  clock: Clock;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/** Who handed the message over, as an SMTP session knows it (the time of receipt is ours to set). */
export type InboundEnvelope = Omit<Envelope, "receivedAt">;

/** An SMTP reply: smtp-server sends `responseCode` and the message as the reply text. */
export function smtpReply(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

/** The RCPT TO decision (recipient-check.ts) on this deployment's routes and mailboxes. */
export function refusalOf(deps: Pick<InboundDeliveryDeps, "routes" | "delivery">, rcpt: string): Promise<Refusal | null> {
  return recipientRefusal(deps.routes, (address) => deps.delivery.lookup(address), rcpt);
}

/**
 * Traces, routes and stores one message; resolves once every copy is committed. Throws an SMTP
 * reply (451 to retry, 550 when no recipient exists any more).
 */
export async function deliverInbound(deps: InboundDeliveryDeps, raw: Buffer, envelope: InboundEnvelope): Promise<DeliveredCopy[]> {
  const receivedAt = new Date(deps.clock.now());
  const { raw: traced, dmarc } = await traceHeaders(raw, { ...envelope, receivedAt }, deps.mailHost, deps.resolve);
  // The From domain's DMARC policy (decision I3): reject refuses, quarantine stores marked.
  const policy = dmarcAction(dmarc);
  if (policy.action === "reject") throw smtpReply(550, policy.text);
  const { routed, local } = await splitByRoute(deps.routes, envelope.recipients);
  // Route handlers get mailparser's whole answer; the store needs less (parseForIndex).
  const parsed = routed.size > 0 ? await parseOrRefuse(deps, () => parseMessage(traced)) : undefined;
  for (const [handler, rcpts] of routed) {
    try {
      await handler({ raw: traced, parsed: parsed!, mailFrom: envelope.mailFrom, recipients: rcpts, remoteAddress: envelope.remoteAddress, receivedAt });
    } catch (error) {
      deps.log("inbound route handler failed", { error: (error as Error).message });
      throw smtpReply(451, "4.3.0 temporary failure, try again later");
    }
  }
  if (local.length === 0) return [];

  const message = toStoredMessage(traced, parsed ?? (await parseOrRefuse(deps, () => parseForIndex(traced))), receivedAt.getTime(), local);
  message.quarantined = policy.action === "quarantine";
  let copies: DeliveredCopy[];
  try {
    copies = await deps.delivery.store(message, local);
  } catch (error) {
    deps.log("inbound store failed", { error: (error as Error).message });
    throw smtpReply(451, "4.3.0 temporary failure storing the message, try again later");
  }
  // The recipients were mailboxes at RCPT TO; deleted since, or a group emptied since.
  if (copies.length === 0 && routed.size === 0) throw smtpReply(550, "5.1.1 no recipient mailbox exists any more");
  return copies;
}

/**
 * A message over mailparser's own limits (a MIME node's header over 1 MB, more than 1,000 MIME
 * parts: mailsplit's EMAXLEN) will be refused the same way on every retry: 552 5.3.4, a
 * permanent refusal, so the sender bounces it now instead of retrying for days (a bare error
 * would be smtp-server's default 450). Anything else is ours and temporary: 451.
 */
async function parseOrRefuse<T>(deps: Pick<InboundDeliveryDeps, "log">, parse: () => Promise<T>): Promise<T> {
  try {
    return await parse();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EMAXLEN") throw smtpReply(552, `5.3.4 message refused: ${(error as Error).message.toLowerCase()}`);
    deps.log("inbound parse failed", { error: (error as Error).message });
    throw smtpReply(451, "4.3.0 temporary failure, try again later");
  }
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
