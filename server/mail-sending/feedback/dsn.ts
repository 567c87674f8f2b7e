// Delivery status notifications (RFC 3464): which recipients failed, and how. A `failed` action
// with a 5.x.x status is a hard bounce (the address does not work, suppress it); with 4.x.x the
// reporting MTA gave up on a transient condition (mailbox full), a soft bounce. `delayed` is a
// warning only (the MTA keeps trying and reports again if it gives up), and `delivered`,
// `relayed`, `expanded` are success reports: none of those change the message.
import { addressOf, parseFieldGroups } from "./report-fields.ts";

export type BounceType = "hard" | "soft";

export interface BounceVerdict {
  bounceType: BounceType;
  /** Final-Recipient, the address that failed, when the report names it. */
  recipient?: string;
  /** Original-Recipient: the address as the sender gave it, when a forwarder changed it (RFC 3464 §2.3.1). */
  originalRecipient?: string;
  /** The enhanced status code, such as 5.1.1. */
  status: string;
  /** The remote server's reply (Diagnostic-Code without its type), else the status. */
  reason: string;
}

const STATUS = /^([245])\.\d{1,3}\.\d{1,3}$/;

/** One verdict per failed recipient of a `message/delivery-status` body; empty when none failed. */
export function bouncesFromDeliveryStatus(text: string): BounceVerdict[] {
  const [, ...recipients] = parseFieldGroups(text);
  const verdicts: BounceVerdict[] = [];
  for (const fields of recipients) {
    if (fields.get("action")?.toLowerCase() !== "failed") continue;
    // The status may carry a comment after the code (RFC 3464 §2.3.4 allows only the code, MTAs add text).
    const status = (fields.get("status") ?? "").split(/[\s(]/)[0];
    const klass = STATUS.exec(status)?.[1];
    if (klass !== "4" && klass !== "5") continue;
    const diagnostic = fields.get("diagnostic-code");
    const reason = diagnostic ? diagnostic.replace(/^[a-z0-9-]+;\s*/i, "") : `status ${status}`;
    verdicts.push({
      bounceType: klass === "5" ? "hard" : "soft",
      recipient: addressOf(fields.get("final-recipient")),
      originalRecipient: addressOf(fields.get("original-recipient")),
      status,
      reason: reason.slice(0, 1000),
    });
  }
  return verdicts;
}
