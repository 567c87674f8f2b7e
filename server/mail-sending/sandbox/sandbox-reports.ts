// The reports a sandbox recipient's server sends back to the message's envelope sender (VERP), in
// the formats real servers use: a DSN (RFC 3464, multipart/report delivery-status) for a hard
// bounce after acceptance, an ARF report (RFC 5965, feedback-report) for a complaint. Each names
// the message by its original headers, as real reports do.
import { randomBytes } from "node:crypto";
import { SANDBOX_DOMAIN } from "./sandbox-recipients.ts";

export interface ReportInput {
  /** The VERP address the report goes to. */
  returnPath: string;
  /** The sandbox recipient. */
  recipient: string;
  /** The header section of the message as sent. */
  originalHeaders: string;
  date: Date;
}

const CRLF = "\r\n";

function report(input: ReportInput, subject: string, reportType: string, human: string, machine: string, original: { type: string; body: string }): Buffer {
  const boundary = `sandbox-${randomBytes(8).toString("hex")}`;
  const lines = [
    `From: Mail Delivery System <MAILER-DAEMON@${SANDBOX_DOMAIN}>`,
    `To: ${input.returnPath}`,
    `Subject: ${subject}`,
    `Date: ${input.date.toUTCString().replace("GMT", "+0000")}`,
    `Message-ID: <${randomBytes(12).toString("hex")}@${SANDBOX_DOMAIN}>`,
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=${reportType}; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    human,
    "",
    `--${boundary}`,
    `Content-Type: message/${reportType}`,
    "",
    machine,
    "",
    `--${boundary}`,
    `Content-Type: ${original.type}`,
    "",
    original.body.replace(/\r?\n/g, CRLF).replace(/(\r\n)+$/, ""),
    "",
    `--${boundary}--`,
    "",
  ];
  return Buffer.from(lines.join(CRLF), "utf8");
}

/** A hard bounce: the mailbox does not exist (5.1.1), reported after the server accepted the message. */
export function sandboxDsn(input: ReportInput): Buffer {
  const diagnostic = `550 5.1.1 <${input.recipient}>: sandbox: mailbox does not exist`;
  return report(
    input,
    "Undelivered Mail Returned to Sender",
    "delivery-status",
    `This is the sandbox mail system. Your message to <${input.recipient}> could not be delivered:${CRLF}${diagnostic}`,
    [`Reporting-MTA: dns; ${SANDBOX_DOMAIN}`, "", `Final-Recipient: rfc822; ${input.recipient}`, "Action: failed", "Status: 5.1.1", `Diagnostic-Code: smtp; ${diagnostic}`].join(CRLF),
    { type: "text/rfc822-headers", body: input.originalHeaders },
  );
}

/** A complaint: the recipient marked the message as spam (feedback type abuse). */
export function sandboxArf(input: ReportInput): Buffer {
  return report(
    input,
    "Abuse report (sandbox)",
    "feedback-report",
    `This is a sandbox complaint: <${input.recipient}> marked your message as spam.`,
    ["Feedback-Type: abuse", "User-Agent: platform-sandbox/1", "Version: 1", `Original-Mail-From: <${input.returnPath}>`, `Original-Rcpt-To: <${input.recipient}>`, `Arrival-Date: ${input.date.toUTCString().replace("GMT", "+0000")}`].join(CRLF),
    { type: "text/rfc822-headers", body: input.originalHeaders },
  );
}
