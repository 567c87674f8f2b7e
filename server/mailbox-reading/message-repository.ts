// The storage boundary of reading received mail: the list with the seed's filters, one message,
// and the lookup by Message-ID. Every method is scoped to one mailbox, whose project the handler
// has already checked.
import type { MessageDetail } from "../inbound/delivery-repository.ts";
import type { Address } from "../inbound/parse-message.ts";

export interface ListFilter {
  limit: number;
  offset: number;
  /** Only messages received at or after this instant (the handler applies the same-second rule). */
  fromMs?: number;
  /** Only messages received before this instant. */
  beforeMs?: number;
  hasAttachment?: boolean;
  /** Lowercased: an exact sender or recipient address. */
  with?: string;
  /** Lowercased substrings of a sender or a recipient address. */
  from?: string;
  to?: string;
}

/** A message id of the API (its number inside the mailbox, M4) as a number; undefined when it cannot be one. */
export const uidOf = (id: string): number | undefined => (/^[1-9]\d{0,14}$/.test(id) ? Number(id) : undefined);

export interface MessageSummaryRecord {
  uid: number;
  subject: string;
  receivedMs: number;
  hasAttachment: boolean;
  rfcMessageId: string;
  from: Address[];
  preview: string;
  /** Its From domain failed DMARC with policy quarantine (decision I3). */
  quarantined: boolean;
}

export interface MessageRecord extends MessageSummaryRecord {
  detail: MessageDetail;
}

export interface Range {
  fromMs?: number;
  beforeMs?: number;
}

export interface LookupResult {
  found?: { uid: number; subject: string; rfcMessageId: string };
  source: "index" | "scan";
  scanned: number;
  /** The oldest receive time examined; undefined when nothing was. */
  reachedBackMs?: number;
}

export interface MessageRepository {
  list(mailboxId: string, filter: ListFilter): Promise<{ messages: MessageSummaryRecord[]; total: number }>;
  get(mailboxId: string, uid: number): Promise<MessageRecord | undefined>;
  /** The message's bytes as stored (RFC 5322, with the trace headers added at receipt). */
  getRaw(mailboxId: string, uid: number): Promise<Buffer | undefined>;
  findByMessageId(mailboxId: string, rfcMessageId: string, range: Range): Promise<LookupResult>;
}
