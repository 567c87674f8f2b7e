// Outgoing mail's job queue and event outbox on a test connection, as the compositions build them.
import { backendOn } from "../../db/backend.ts";
import { mailOutboxOf as onBackend } from "../../db/mail-outbox-of.ts";
import type { Clock } from "../../jobs/clock.ts";
import type { Connection } from "../../test/backends.ts";
import type { MailOutbox } from "../mail-outbox.ts";

export function mailOutboxOf(c: Connection, clock: Clock): MailOutbox {
  return onBackend(backendOn(c.store, clock));
}
