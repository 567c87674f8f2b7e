// A received message as the store keeps it: what the parser (parse-message.ts) makes of the bytes
// and the delivery repository stores. Its own file, so the parser and the repository do not import
// each other.

export interface Address {
  email: string;
  name?: string;
}

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
