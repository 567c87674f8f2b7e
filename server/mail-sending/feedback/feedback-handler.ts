// Mail arriving at a VERP address (through the inbound listener's routing hook): find the message
// the address was made for, read the report, and record a bounce or a complaint. Unreadable or
// irrelevant mail (an out-of-office reply, a delay warning) is accepted and dropped, never
// bounced back: bouncing a bounce makes loops. Only a failure to record throws, so the sending
// MTA retries (the recording is idempotent: a message already bounced does not move again).
//
// What a report may change (decisions T6, T7, T8): only the message and recipient its signed VERP
// address was made for; nothing in the report itself names a message, since every copy shows the
// message's id. The store decides whether the message's status still takes the report.
import type { MessageFeedback, TrackingInfo } from "../message-repository.ts";
import type { ReturnPathRole, ReturnPaths } from "../verp.ts";
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
  /** The send path's signed VERP addresses. */
  returnPaths: ReturnPaths;
}

/** The message a VERP address was made for and whose delivery it reports on; undefined for any other address. */
export async function reportedMessage(deps: FeedbackHandlerDeps, address: string): Promise<{ target: TrackingInfo; role: ReturnPathRole } | undefined> {
  const id = deps.returnPaths.claimedMessageId(address);
  const target = id ? await deps.feedback.getTrackingInfo(id) : undefined;
  const role = target ? deps.returnPaths.verify(address, target) : undefined;
  return target && role ? { target, role } : undefined;
}

export async function handleFeedbackMail(deps: FeedbackHandlerDeps, mail: FeedbackMail): Promise<FeedbackOutcome> {
  const report = await parseFeedback(mail.raw);
  let named: Awaited<ReturnType<typeof reportedMessage>>;
  for (const rcpt of mail.recipients) named ??= await reportedMessage(deps, rcpt);
  // Feedback loops often report to one fixed address; the report's Original-Mail-From is then the
  // reported message's envelope sender, which must be a signed VERP address as well (T8).
  if (!named && report.kind === "complaint" && report.complaint.originalMailFrom) named = await reportedMessage(deps, report.complaint.originalMailFrom);
  if (!named) return { action: "ignored", reason: "no signed VERP address names a message" };
  const { target, role } = named;
  const messageId = target.id;
  if (report.kind === "ignored") return { action: "ignored", messageId, reason: report.reason };
  // The copies' address is shared by every Cc and Bcc recipient: its reports never move the
  // message, whose status is its To recipient's (T7).
  if (role === "copies") return { action: "ignored", messageId, reason: "a report on a Cc or Bcc copy" };

  if (report.kind === "complaint") {
    const moved = await deps.feedback.markComplained(messageId);
    return moved ? { action: "complained", messageId, reason: report.complaint.feedbackType } : { action: "ignored", messageId, reason: "the message's status does not take a complaint" };
  }
  // RFC 3464 requires the recipient in each group; it must be the To address the VERP was made
  // for (as delivered, or as given before a forwarder changed it).
  const to = target.to.toLowerCase();
  const own = report.bounces.filter((b) => [b.recipient, b.originalRecipient].some((r) => r?.toLowerCase() === to));
  const bounce = own.find((b) => b.bounceType === "hard") ?? own[0];
  if (!bounce) return { action: "ignored", messageId, reason: "the report names no recipient the address was made for" };
  const moved = await deps.feedback.markBounced(messageId, { bounceType: bounce.bounceType, reason: bounce.reason });
  if (!moved) return { action: "ignored", messageId, reason: "the message's status does not take a bounce" };
  return { action: bounce.bounceType === "hard" ? "bounced" : "soft_bounced", messageId, reason: bounce.reason };
}
