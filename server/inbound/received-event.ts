// The mail.received event of one stored copy (payload: spec/events/payloads.tsp), emitted inside
// the transaction that stores it.
import type { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import type { DeliveredCopy, StoredMessage } from "./delivery-repository.ts";

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

export function emitReceived(events: EventOutbox, copy: DeliveredCopy, message: StoredMessage): void {
  events.emit(copy.projectId, "mail.received", receivedData(copy, message));
}
