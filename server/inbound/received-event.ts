// The mail.received event of one stored copy (payload: spec/events/payloads.tsp), emitted inside
// the transaction that stores it.
import type { EventOutbox } from "../events/event-outbox.ts";
import type { DeliveredCopy, StoredMessage } from "./delivery-repository.ts";

export function emitReceived(events: EventOutbox, copy: DeliveredCopy, message: StoredMessage): void {
  events.emit(copy.projectId, "mail.received", {
    mailboxId: copy.mailboxId,
    mailbox: copy.mailbox,
    messageId: String(copy.uid),
    rfcMessageId: message.rfcMessageId,
    from: message.from,
    to: message.detail.to,
    subject: message.subject,
    receivedAt: new Date(message.receivedMs).toISOString(),
    hasAttachment: message.hasAttachment,
  });
}
