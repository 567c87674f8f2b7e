// The storage boundary of the listener: who an address is, and storing an accepted message into
// every mailbox it reaches in one transaction.
import type { Address } from "./parse-message.ts";

export type Recipient =
  | { kind: "mailbox" | "group"; id: string; projectId: string; email: string }
  /** On a verified mail domain, but no such mailbox or group: 550 5.1.1. */
  | { kind: "unknown" }
  /** A mailbox or group whose domain is no longer verified (decision O1): 450, the owner may restore the proof. */
  | { kind: "unverified" }
  /** Not a domain any project owns here (a pending claim is not ownership): 550 relay denied. */
  | { kind: "foreign" };

/** The columns a list page filters and shows, and the whole message's parsed parts. */
export interface StoredMessage {
  raw: Buffer;
  receivedMs: number;
  subject: string;
  from: Address[];
  /** Lowercased addresses of To, Cc and the envelope recipients: what the `to` filter searches. */
  recipientAddresses: string[];
  hasAttachment: boolean;
  rfcMessageId: string;
  preview: string;
  /** Its From domain failed DMARC and asks for quarantine (dmarc-policy.ts): shown marked. */
  quarantined: boolean;
  detail: MessageDetail;
}

export interface MessageDetail {
  messageId: string;
  inReplyTo: string[];
  references: string[];
  to: Address[];
  text: string;
  html: string | null;
  headers: { name: string; value: string }[];
}

export interface DeliveredCopy {
  projectId: string;
  mailboxId: string;
  mailbox: string;
  /** The message's id inside that mailbox. */
  uid: number;
}

export interface DeliveryRepository {
  /** Synchronous on SQLite (the main thread's connection), a query on PostgreSQL. */
  lookup(address: string): Recipient | Promise<Recipient>;
  /**
   * One transaction: the bytes, one copy per distinct mailbox the recipients reach (a group
   * reaches its members), each mailbox's usedBytes, and each copy's `mail.received` event. Resolves once committed durably; no copies when no recipient
   * reaches a mailbox any more.
   */
  store(message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]>;
  close?(): Promise<void>;
}
