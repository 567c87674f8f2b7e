// The per-message envelope sender (VERP): DSNs and complaint reports come back to an address that
// names the message, so feedback parsing finds it without trusting anything inside the report.
//
// The message id alone was that address once, and every copy of a message shows its id (in the
// Message-ID), so anyone could bounce any recipient (issue 28 item 5). The address now carries a
// MAC (decision T6): `bounces+<message id>.<mac>@<sender domain>` for the message's To recipient,
// `bounces+<message id>.c.<mac>@<sender domain>` for its Cc and Bcc copies. The MAC is the
// message tokens' (T3, purpose `bounce`) and also covers the recipient it was made for and the
// sender domain, so a report can name only the message, the recipient and the domain its address
// was made for; the copies' address covers no recipient and its reports change nothing (T7).
import { domainOf } from "./relay-jobs.ts";
import type { MessageTokens } from "./tokens/message-token.ts";

const PREFIX = "bounces+";
const COPIES = "c";

/** Whose delivery an address reports on: the message's To recipient, or its Cc/Bcc copies. */
export type ReturnPathRole = "to" | "copies";

/** What a VERP address is checked against: the message it names. */
export interface ReturnPathMessage {
  id: string;
  to: string;
  from: string;
}

export class ReturnPaths {
  private readonly tokens: MessageTokens;

  /** `tokens`: the message tokens of the tracking and unsubscribe URLs (one key, purposes apart). */
  constructor(tokens: MessageTokens) {
    this.tokens = tokens;
  }

  /** The envelope sender of the message's delivery to its To recipient, or to its copies. */
  for(message: ReturnPathMessage, role: ReturnPathRole = "to"): string {
    const domain = domainOf(message.from);
    const fields = role === "to" ? [message.id] : [message.id, COPIES];
    return `${PREFIX}${this.tokens.sign("bounce", fields, bound(message, role, domain))}@${domain}`;
  }

  /**
   * The message id an address claims to name, before any check (to look the message up); undefined
   * when it is not a VERP address of the current form, so a `bounces+<id>` of before T6 is none.
   */
  claimedMessageId(address: string): string | undefined {
    const token = tokenOf(address);
    const fields = token?.split(".");
    return fields && (fields.length === 2 || (fields.length === 3 && fields[1] === COPIES)) ? fields[0] : undefined;
  }

  /** The role this address was made for with `message`, or undefined when it was not made by `for`. */
  verify(address: string, message: ReturnPathMessage): ReturnPathRole | undefined {
    const token = tokenOf(address);
    const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
    if (!token || this.claimedMessageId(address) !== message.id.toLowerCase() || domain !== domainOf(message.from)) return undefined;
    const role: ReturnPathRole = token.split(".").length === 2 ? "to" : "copies";
    const fields = this.tokens.verify("bounce", token, role === "to" ? 1 : 2, bound(message, role, domain));
    return fields ? role : undefined;
  }
}

/** What the MAC covers beside the token's fields: the recipient (none for copies) and the domain. */
function bound(message: ReturnPathMessage, role: ReturnPathRole, domain: string): string[] {
  return [role === "to" ? message.to.toLowerCase() : "", domain];
}

function tokenOf(address: string): string | undefined {
  const at = address.lastIndexOf("@");
  if (at < 0) return undefined;
  const local = address.slice(0, at).toLowerCase();
  return local.startsWith(PREFIX) ? local.slice(PREFIX.length) : undefined;
}

/** Message-ID on the sender domain (issue 10), without angle brackets. */
export function rfcMessageIdFor(messageId: string, senderDomain: string): string {
  return `${messageId}@${senderDomain}`;
}
