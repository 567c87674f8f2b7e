// Mail arriving at a VERP address (through the inbound listener's routing hook): find the message
// the address names, read the report, and record a bounce or a complaint. Unreadable or
// irrelevant mail (an out-of-office reply, a delay warning) is accepted and dropped, never
// bounced back: bouncing a bounce makes loops. Only a failure to record throws, so the sending
// MTA retries (the recording is idempotent: a message already bounced does not move again).
import type { MessageFeedback } from "../message-repository.ts";
import { parseFeedback } from "./parse-feedback.ts";

export interface FeedbackMail {
  raw: Buffer;
  /** The envelope recipients that reached this handler. */
  recipients: string[];
}

export type FeedbackOutcome =
  | { action: "bounced" | "soft_bounced" | "complained"; messageId: string; reason: string }
  /** Nothing recorded; `messageId` when the message was known. */
  | { action: "ignored"; messageId?: string; reason: string };

export interface FeedbackHandlerDeps {
  feedback: MessageFeedback;
  /** The message id a Return-Path names (the send path owns the VERP format), else undefined. */
  messageIdOfReturnPath: (address: string) => string | undefined;
}

export async function handleFeedbackMail(deps: FeedbackHandlerDeps, mail: FeedbackMail): Promise<FeedbackOutcome> {
  const report = await parseFeedback(mail.raw);
  const fromEnvelope = mail.recipients.map((r) => deps.messageIdOfReturnPath(r)).find(Boolean);
  // Feedback loops often report to one fixed address; the report's Original-Mail-From is then
  // the reported message's envelope sender, our VERP address.
  const fromReport = report.kind === "complaint" && report.complaint.originalMailFrom ? deps.messageIdOfReturnPath(report.complaint.originalMailFrom) : undefined;
  const messageId = fromEnvelope ?? fromReport;
  if (!messageId) return { action: "ignored", reason: "no VERP address names a message" };
  const target = await deps.feedback.getTrackingInfo(messageId);
  if (!target) return { action: "ignored", reason: "the message does not exist" };
  if (report.kind === "ignored") return { action: "ignored", messageId, reason: report.reason };

  if (report.kind === "complaint") {
    const moved = await deps.feedback.markComplained(messageId);
    return moved ? { action: "complained", messageId, reason: report.complaint.feedbackType } : { action: "ignored", messageId, reason: "the message's status does not take a complaint" };
  }
  // The Return-Path is shared by the message's Cc and Bcc recipients; only a failure of its To
  // address (or one that names no address) is the message's bounce.
  const own = report.bounces.filter((b) => !b.recipient || b.recipient.toLowerCase() === target.to.toLowerCase());
  const bounce = own.find((b) => b.bounceType === "hard") ?? own[0];
  if (!bounce) return { action: "ignored", messageId, reason: "the report names other recipients than the message's" };
  const moved = await deps.feedback.markBounced(messageId, { bounceType: bounce.bounceType, reason: bounce.reason });
  if (!moved) return { action: "ignored", messageId, reason: "the message's status does not take a bounce" };
  return { action: bounce.bounceType === "hard" ? "bounced" : "soft_bounced", messageId, reason: bounce.reason };
}
