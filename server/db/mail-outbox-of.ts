// Outgoing mail's jobs and events (mail-sending/mail-outbox.ts) on a backend's one queue and
// outbox, in the caller's transaction: the same on both stores.
import type { MailOutbox } from "../mail-sending/mail-outbox.ts";
import type { Backend } from "./backend.ts";

export function mailOutboxOf(backend: Backend): MailOutbox {
  return {
    enqueue: (tx, kind, payload, options) => backend.queue.enqueue(tx, kind, payload, options),
    cancelWhere: (tx, kind, path, value) => backend.queue.cancelWhere(tx, kind, path, value),
    emit: (tx, projectId, type, data) => backend.events.emit(tx, projectId, type, data),
  };
}
