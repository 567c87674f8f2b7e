// What a mail arriving at a VERP address says: a bounce (DSN), a complaint (ARF) or nothing we
// act on (an out-of-office reply, a warning, a success report). MIME is parsed by mailparser; the
// report parts are read by dsn.ts and arf.ts.
import { simpleParser } from "mailparser";
import { complaintFromFeedbackReport, type ComplaintReport } from "./arf.ts";
import { bouncesFromDeliveryStatus, type BounceVerdict } from "./dsn.ts";

export type Feedback =
  | { kind: "bounce"; bounces: BounceVerdict[] }
  | { kind: "complaint"; complaint: ComplaintReport }
  | { kind: "ignored"; reason: string };

// RFC 6533 (internationalized addresses) names the same part message/global-delivery-status.
const DSN_PARTS = new Set(["message/delivery-status", "message/global-delivery-status"]);

export async function parseFeedback(raw: Buffer | string): Promise<Feedback> {
  const mail = await simpleParser(raw, { keepDeliveryStatus: true });
  const type = mail.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  const reportType = type?.value?.toLowerCase() === "multipart/report" ? type.params?.["report-type"]?.toLowerCase() : undefined;
  if (reportType === "delivery-status") {
    const part = mail.attachments.find((a) => DSN_PARTS.has(a.contentType.toLowerCase()));
    if (!part) return { kind: "ignored", reason: "delivery report without a delivery-status part" };
    const bounces = bouncesFromDeliveryStatus(part.content.toString("utf8"));
    return bounces.length ? { kind: "bounce", bounces } : { kind: "ignored", reason: "delivery report without a failed recipient" };
  }
  if (reportType === "feedback-report") {
    const part = mail.attachments.find((a) => a.contentType.toLowerCase() === "message/feedback-report");
    if (!part) return { kind: "ignored", reason: "feedback report without a feedback-report part" };
    const complaint = complaintFromFeedbackReport(part.content.toString("utf8"));
    return complaint ? { kind: "complaint", complaint } : { kind: "ignored", reason: "feedback report that is not a complaint" };
  }
  return { kind: "ignored", reason: "not a delivery or feedback report" };
}
