// Bounce and complaint reports shaped like those real MTAs and feedback loops send (Postfix,
// Exchange, Sendmail warnings, ARF), read from samples/.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { complaintFromFeedbackReport } from "./arf.ts";
import { bouncesFromDeliveryStatus } from "./dsn.ts";
import { parseFeedback, type Feedback } from "./parse-feedback.ts";

const sample = (name: string) => readFileSync(path.join(import.meta.dirname, "samples", `${name}.eml`));

const cases: [string, Feedback][] = [
  [
    "dsn-hard-postfix",
    {
      kind: "bounce",
      bounces: [{
        bounceType: "hard",
        recipient: "nobody@recipient.example",
        originalRecipient: "nobody@recipient.example",
        status: "5.1.1",
        reason: "550 5.1.1 <nobody@recipient.example>: Recipient address rejected: User unknown in local recipient table",
      }],
    },
  ],
  ["dsn-soft-exchange", { kind: "bounce", bounces: [{ bounceType: "soft", recipient: "full@recipient.example", status: "4.2.2", reason: "452 4.2.2 Mailbox full" }] }],
  ["dsn-delayed-sendmail", { kind: "ignored", reason: "delivery report without a failed recipient" }],
  [
    "arf-abuse",
    {
      kind: "complaint",
      complaint: {
        feedbackType: "abuse",
        originalMailFrom: "bounces+MSGTOKEN@shop.example",
        originalRcptTo: "reader@isp.example",
        userAgent: "SomeGenerator/1.0",
        arrivalDate: "Mon, 23 Nov 2026 11:00:00 +0000",
      },
    },
  ],
  ["arf-not-spam", { kind: "ignored", reason: "feedback report that is not a complaint" }],
  ["plain-autoreply", { kind: "ignored", reason: "not a delivery or feedback report" }],
];

describe("parseFeedback", () => {
  it.each(cases)("%s", async (name, want) => {
    expect(await parseFeedback(sample(name))).toEqual(want);
  });

  it("reads CRLF mail as sent over SMTP", async () => {
    const crlf = sample("dsn-hard-postfix").toString("utf8").replace(/\n/g, "\r\n");
    expect(await parseFeedback(crlf)).toEqual(cases[0][1]);
  });
});

describe("bouncesFromDeliveryStatus", () => {
  const perMessage = "Reporting-MTA: dns; mx.example\n\n";
  it.each([
    ["one failed among several recipients", "Final-Recipient: rfc822; ok@x.example\nAction: delivered\nStatus: 2.0.0\n\nFinal-Recipient: rfc822; gone@x.example\nAction: failed\nStatus: 5.1.1\n", [{ bounceType: "hard", recipient: "gone@x.example", status: "5.1.1", reason: "status 5.1.1" }]],
    ["upper-case action, status with a comment", "Final-Recipient: RFC822; A@X.example\nACTION: FAILED\nStatus: 5.7.1 (delivery not authorized)\nDiagnostic-Code: X-Unix; refused\n", [{ bounceType: "hard", recipient: "A@X.example", status: "5.7.1", reason: "refused" }]],
    ["failed with 4.x.x after retries is soft", "Final-Recipient: rfc822;full@x.example\nAction: failed\nStatus: 4.4.7\n", [{ bounceType: "soft", recipient: "full@x.example", status: "4.4.7", reason: "status 4.4.7" }]],
    ["only Original-Recipient", "Original-Recipient: rfc822;o@x.example\nAction: failed\nStatus: 5.0.0\n", [{ bounceType: "hard", originalRecipient: "o@x.example", status: "5.0.0", reason: "status 5.0.0" }]],
    ["a failed action without a valid status is not trusted", "Final-Recipient: rfc822;a@x.example\nAction: failed\nStatus: bogus\n", []],
    ["relayed and expanded are no failure", "Final-Recipient: rfc822;a@x.example\nAction: relayed\nStatus: 2.0.0\n\nFinal-Recipient: rfc822;b@x.example\nAction: expanded\nStatus: 2.0.0\n", []],
    ["no per-recipient group", "", []],
  ])("%s", (_name, recipients, want) => {
    expect(bouncesFromDeliveryStatus(perMessage + recipients)).toEqual(want);
  });
});

describe("complaintFromFeedbackReport", () => {
  it.each([
    ["abuse", "Feedback-Type: abuse\nVersion: 1\nUser-Agent: X/1\n", "abuse"],
    ["fraud, folded user agent", "Feedback-Type: Fraud\nUser-Agent: X/1\n  (folded)\nVersion: 1\n", "fraud"],
    ["other", "Feedback-Type: other\nVersion: 1\n", "other"],
    ["not-spam is no complaint", "Feedback-Type: not-spam\nVersion: 1\n", undefined],
    ["auth-failure is no complaint", "Feedback-Type: auth-failure\nVersion: 1\n", undefined],
    ["no feedback type", "Version: 1\n", undefined],
  ])("%s", (_name, text, want) => {
    expect(complaintFromFeedbackReport(text)?.feedbackType).toBe(want);
  });
});
