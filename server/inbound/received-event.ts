// The mail.received event of one stored copy (payload: spec/events/payloads.tsp), emitted by the
// delivery repository inside the transaction that stores it.
import type { DeliveredCopy, StoredMessage } from "./stored-message.ts";

/** The event's data: the same on both backends. */
export function receivedData(copy: DeliveredCopy, message: StoredMessage): Record<string, unknown> {
  return {
    mailboxId: copy.mailboxId,
    mailbox: copy.mailbox,
    messageId: String(copy.uid),
    rfcMessageId: message.rfcMessageId,
    from: message.from,
    to: message.detail.to,
    subject: message.subject,
    receivedAt: new Date(message.receivedMs).toISOString(),
    hasAttachment: message.hasAttachment,
    quarantined: message.quarantined,
  };
}
