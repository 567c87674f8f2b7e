// Abuse reports (ARF, RFC 5965): a mailbox provider tells the sender that its user marked the
// message as spam. `abuse`, `fraud`, `virus` and `other` are complaints about the message;
// `not-spam` is the opposite and `auth-failure` (RFC 6591) is about authentication, not the
// recipient's wish: neither is a complaint.
import { addressOf, parseFieldGroups } from "./report-fields.ts";

export interface ComplaintReport {
  feedbackType: string;
  /** Original-Mail-From: the envelope sender of the reported message, our VERP address. */
  originalMailFrom?: string;
  /** Original-Rcpt-To, often redacted by the provider. */
  originalRcptTo?: string;
  userAgent?: string;
  arrivalDate?: string;
}

const COMPLAINT_TYPES = new Set(["abuse", "fraud", "virus", "other"]);

/** The complaint in a `message/feedback-report` body, or undefined when it is not one. */
export function complaintFromFeedbackReport(text: string): ComplaintReport | undefined {
  const fields = parseFieldGroups(text)[0];
  const feedbackType = fields?.get("feedback-type")?.toLowerCase();
  if (!fields || !feedbackType || !COMPLAINT_TYPES.has(feedbackType)) return undefined;
  return {
    feedbackType,
    originalMailFrom: addressOf(fields.get("original-mail-from")),
    originalRcptTo: addressOf(fields.get("original-rcpt-to")),
    userAgent: fields.get("user-agent"),
    arrivalDate: fields.get("arrival-date"),
  };
}
