// The reserved-header rules (decision S15) on their own, table-driven: which names are refused
// with which reason, header injection, invalid names, unfoldable lines and the total cap. The
// same rules over a real send and the bytes a sink receives are in custom-headers.test.ts.
import { describe, expect, it } from "vitest";
import { MAX_CUSTOM_HEADER_CHARS, MAX_LINE_OCTETS, crlfProblem, headerProblems, reservedReason } from "./header-rules.ts";

const OWN_FIELD = "set from the request's own field";
const REPLY_TO = "set from the request's replyTo field";
const COMPOSED = "set when the platform composes the message";
const DKIM = "the platform's DKIM signature";
const UNSUBSCRIBE = "added by unsubscribe: true";
const IDENTITY = "an identity or a report address the platform's signature would vouch for";
const TRACE = "a trace or verdict field that receiving servers add";

describe("reservedReason", () => {
  it.each([
    ["From", OWN_FIELD], ["to", OWN_FIELD], ["CC", OWN_FIELD], ["Bcc", OWN_FIELD], ["Subject", OWN_FIELD],
    ["Reply-To", REPLY_TO],
    ["Message-ID", COMPOSED], ["date", COMPOSED], ["MIME-Version", COMPOSED], ["Return-Path", COMPOSED],
    ["Content-Type", COMPOSED], ["content-transfer-encoding", COMPOSED], ["Content-", COMPOSED],
    ["DKIM-Signature", DKIM], ["dkim-", DKIM], ["DomainKey-Signature", DKIM],
    ["List-Unsubscribe", UNSUBSCRIBE], ["List-Unsubscribe-Post", UNSUBSCRIBE],
    ["Sender", IDENTITY], ["Resent-From", IDENTITY], ["resent-", IDENTITY], ["Errors-To", IDENTITY],
    ["Return-Receipt-To", IDENTITY], ["Disposition-Notification-To", IDENTITY], ["disposition-notification-options", IDENTITY],
    ["Received", TRACE], ["X-Received", TRACE], ["Received-SPF", TRACE], ["Authentication-Results", TRACE],
    ["ARC-Seal", TRACE], ["arc-", TRACE], ["Delivered-To", TRACE], ["X-Original-To", TRACE], ["x-original-", TRACE],
    ["X-Spam-Status", TRACE], ["x-spam-", TRACE], ["X-MS-Exchange-Organization-SCL", TRACE], ["x-ms-exchange-organization-", TRACE],
    ["BIMI-Location", TRACE], ["BIMI-Indicator", TRACE],
  ])("%s is reserved", (name, reason) => {
    expect(reservedReason(name)).toBe(reason);
  });

  // Whole names only: a family's name inside a longer one, or a prefix without its dash, is free.
  it.each([
    "X-Campaign", "X-From", "From-X", "Tos", "XSubject", "Reply-To-X", "X-Message-ID", "Dates", "X-Content-Type", "Content",
    "X-DKIM-Signature", "DKIM", "DomainKey-Signature2", "X-List-Unsubscribe", "Senders", "X-Sender", "Resent", "X-Resent-From",
    "Errors-To-X", "X-Reply-To", "X-Return-Receipt-To", "Disposition-Notification", "X-Received-By", "Received-X", "ARC", "X-ARC-Seal",
    "X-Delivered-To", "X-Original", "X-Spam", "X-MS-Exchange-Organization", "X-BIMI-Location", "BIMI-Location2", "List-Id",
  ])("%s is free", (name) => {
    expect(reservedReason(name)).toBeUndefined();
  });
});

describe("headerProblems", () => {
  const one = (name: string, value: string) => headerProblems({ [name]: value }, "body.headers");
  const folded = (words: number, len: number) => Array.from({ length: words }, () => "w".repeat(len)).join(" ");

  it.each([
    ["no headers at all", undefined],
    ["an empty object", {}],
    ["a free header", { "X-Campaign": "spring" }],
    ["a long value with spaces (folded)", { "X-Long": folded(200, 60) }],
    // The composer folds the name's line before a run: the run's line is a space and the run.
    ["a value of one run that fits a line", { "X-Run": "a".repeat(MAX_LINE_OCTETS - 1) }],
    ["a long run of non-ASCII (encoded in words)", { "X-Run": "é".repeat(2000) }],
    ["names of every printable character but the colon", { "!#$%&'*+-.^_`|~09AZaz": "v" }],
    ["a name of 76 characters", { ["X".repeat(76)]: "v" }],
  ])("accepts %s", (_name, headers) => {
    expect(headerProblems(headers, "body.headers")).toEqual([]);
  });

  const CRLF = "must not contain CR or LF (header injection)";
  const BAD_NAME = "is not a valid header name (printable ASCII without colon or space)";
  it.each([
    ["CR in a value", "X-A", "a\rb", CRLF],
    ["LF in a value", "X-A", "a\nBcc: x@y", CRLF],
    ["LF in a name", "X-A\nBcc", "v", CRLF],
    ["CR in a reserved name", "From\r", "v", CRLF],
    ["a colon in a name", "X:A", "v", BAD_NAME],
    ["a space in a name", "X A", "v", BAD_NAME],
    ["a non-ASCII name", "X-Ä", "v", BAD_NAME],
    ["a DEL in a name", "X-\x7f", "v", BAD_NAME],
    ["a control character in a name", "X-\x01", "v", BAD_NAME],
    ["an empty name", "", "v", BAD_NAME],
    ["a name of 77 characters", "X".repeat(77), "v", BAD_NAME],
    ["a reserved name", "Sender", "v", `is reserved (${IDENTITY}) and cannot be a custom header`],
    ["a run longer than a line", "X-Run", "a".repeat(MAX_LINE_OCTETS), `cannot be folded into lines of ${MAX_LINE_OCTETS} characters (RFC 5322): break it with spaces`],
  ])("refuses %s", (_case, name, value, message) => {
    expect(one(name, value)).toEqual([{ path: `body.headers.${name}`, message }]);
  });

  it("reports every bad header, each under its own path", () => {
    expect(headerProblems({ From: "a", "X-Ok": "b", "X:B": "c" }, "p").map((x) => x.path)).toEqual(["p.From", "p.X:B"]);
  });

  it("caps all custom headers together, names and values counted", () => {
    const spaced = (length: number) => "ab ".repeat(length).slice(0, length);
    const exact = { "X-A": spaced(MAX_CUSTOM_HEADER_CHARS - 3 - 1 - 10), X: "0123456789" };
    expect(headerProblems(exact, "p")).toEqual([]);
    expect(headerProblems({ ...exact, Y: "" }, "p")).toEqual([
      { path: "p", message: `total ${MAX_CUSTOM_HEADER_CHARS + 1} characters; custom headers may have ${MAX_CUSTOM_HEADER_CHARS} at most` },
    ]);
    // The cap is told beside the problems of single headers, and only once.
    expect(headerProblems({ ...exact, From: "x" }, "p").map((x) => x.path)).toEqual(["p.From", "p"]);
  });
});

describe("crlfProblem", () => {
  it.each([
    [undefined, []],
    ["", []],
    ["Hello", []],
    ["a\rb", [{ path: "body.subject", message: "must not contain CR or LF (header injection)" }]],
    ["a\nb", [{ path: "body.subject", message: "must not contain CR or LF (header injection)" }]],
  ])("%j", (value, want) => {
    expect(crlfProblem(value, "body.subject")).toEqual(want);
  });
});
