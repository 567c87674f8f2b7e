// The samples the test operation sends (POST /v1/webhooks/{id}/test, decision W8): for every
// event type, `data` in that type's payload shape (spec/events/payloads.tsp, typed here from the
// generated contract types, so a payload change that the samples miss fails the type check), with
// made-up values a receiver can tell apart: ids `msg_test...`, addresses at example.org (RFC 2606),
// the reserved relay `sandbox`. The envelope is the real one plus `test: true`.
import type { components } from "../../generated/types/openapi.d.ts";
import { EVENT_TYPES, type EventType } from "../events/event-outbox.ts";
import { newId } from "../ids.ts";

type Schemas = components["schemas"];

interface SampleData {
  "mail.received": Schemas["MailReceivedData"];
  "mail.delivered": Schemas["MailDeliveredData"];
  "mail.bounced": Schemas["MailBouncedData"];
  "mail.complained": Schemas["MailComplainedData"];
  "mail.opened": Schemas["MailOpenedData"];
  "mail.clicked": Schemas["MailClickedData"];
  "mail.dlp": Schemas["MailDlpData"];
  "maildomain.status_changed": Schemas["MailDomainStatusChangedData"];
}

const sent = { messageId: "msg_test", to: "recipient@example.org", campaign: "test", category: "test" };

/** One sample per type; `at` is the sample's time (ISO 8601). */
const samples: { [T in EventType]: (at: string) => SampleData[T] } = {
  "mail.received": (at) => ({
    mailboxId: "mbx_test",
    mailbox: "inbox@example.org",
    messageId: "1",
    rfcMessageId: "<test@platform.test>",
    from: [{ email: "sender@example.org", name: "Test Sender" }],
    to: [{ email: "inbox@example.org" }],
    subject: "Test event",
    receivedAt: at,
    hasAttachment: false,
    quarantined: false,
  }),
  "mail.delivered": () => ({ ...sent, relay: "sandbox", relayMessageId: "<test@platform.test>" }),
  "mail.bounced": () => ({ ...sent, bounceType: "hard", reason: "550 5.1.1 test event: no such mailbox" }),
  "mail.complained": () => ({ ...sent, scope: "" }),
  "mail.opened": () => ({ ...sent }),
  "mail.clicked": () => ({ ...sent, idx: 0, url: "https://example.org/" }),
  "mail.dlp": () => ({
    messageId: "msg_test",
    action: "warned",
    from: "sender@example.org",
    to: "recipient@example.org",
    finding: { type: "card", masked: "4111 **** **** 1111", where: "text", full: false, mass: false, count: 1 },
  }),
  "maildomain.status_changed": (at) => ({
    domainId: "dom_test",
    domain: "example.org",
    status: "verified",
    previousStatus: "pending",
    method: "dns",
    at,
  }),
};

export function isEventType(value: unknown): value is EventType {
  return (EVENT_TYPES as readonly unknown[]).includes(value);
}

/** The exact body of a test event of `type` at `atMs`: the envelope with `test: true`. */
export function sampleEvent(type: EventType, atMs: number): { id: string; body: string; createdAt: string } {
  const createdAt = new Date(atMs).toISOString();
  const id = newId("evt");
  return { id, createdAt, body: JSON.stringify({ id, type, createdAt, test: true, data: samples[type](createdAt) }) };
}
