// Custom headers may not take over what the composer, the signer or the list headers own, nor
// claim an identity or a history the platform's DKIM signature would then vouch for (issue 28
// item 9); nothing that reaches a header may carry CR or LF (header injection, issue 10); and a
// value must leave as lines a receiving server accepts (RFC 5322 §2.1.1: 998 octets at most).
import MimeNode from "nodemailer/lib/mime-node";
import type { FieldProblem } from "../http/errors.ts";

// Each family with the reason given to the sender (decision S15).
const RESERVED: [RegExp, string][] = [
  [/^(from|to|cc|bcc|subject)$/i, "set from the request's own field"],
  [/^reply-to$/i, "set from the request's replyTo field"],
  [/^(message-id|date|mime-version|return-path|content-.*)$/i, "set when the platform composes the message"],
  [/^(dkim-.*|domainkey-signature)$/i, "the platform's DKIM signature"],
  [/^list-unsubscribe.*$/i, "added by unsubscribe: true"],
  // Who the message is from or on whose behalf, and where replies and reports go: the platform
  // signs them, so a sender may not name another identity or divert reports.
  [/^(sender|resent-.*|errors-to|return-receipt-to|disposition-notification-.*)$/i, "an identity or a report address the platform's signature would vouch for"],
  // Trace and verdict fields are written by the servers a message passes through; a sender's
  // copy would be read as their findings (authentication, spam verdicts, the original recipient).
  [
    /^(received|x-received|received-spf|authentication-results|arc-.*|delivered-to|x-original-.*|x-spam-.*|x-ms-exchange-organization-.*|bimi-location|bimi-indicator)$/i,
    "a trace or verdict field that receiving servers add",
  ],
];
// RFC 5322 field-name: printable US-ASCII except the colon.
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
const CRLF = /[\r\n]/;
// RFC 5322 §2.1.1, without the CRLF.
export const MAX_LINE_OCTETS = 998;
/** All custom headers of one message together (names and values), a receiving server's header limit in view. */
export const MAX_CUSTOM_HEADER_CHARS = 32_000;

/** Why a custom header name is refused, or undefined when a sender may set it. */
export function reservedReason(name: string): string | undefined {
  return RESERVED.find(([pattern]) => pattern.test(name))?.[1];
}

export function headerProblems(headers: Record<string, string> | undefined, path: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  let total = 0;
  for (const [name, value] of Object.entries(headers ?? {})) {
    const at = `${path}.${name}`;
    total += name.length + value.length;
    const reserved = reservedReason(name);
    if (CRLF.test(name) || CRLF.test(value)) problems.push({ path: at, message: "must not contain CR or LF (header injection)" });
    else if (!FIELD_NAME.test(name)) problems.push({ path: at, message: "is not a valid header name (printable ASCII without colon or space)" });
    else if (reserved) problems.push({ path: at, message: `is reserved (${reserved}) and cannot be a custom header` });
    else if (longestLine(name, value) > MAX_LINE_OCTETS) {
      problems.push({ path: at, message: `cannot be folded into lines of ${MAX_LINE_OCTETS} characters (RFC 5322): break it with spaces` });
    }
  }
  if (total > MAX_CUSTOM_HEADER_CHARS) problems.push({ path, message: `total ${total} characters; custom headers may have ${MAX_CUSTOM_HEADER_CHARS} at most` });
  return problems;
}

/**
 * The longest line (octets, without CRLF) of this header as the composer writes it: nodemailer
 * folds at whitespace at 76 and encodes non-ASCII words, but a run without whitespace cannot be
 * folded (RFC 5322 folds only at whitespace), so it is measured on the composer's own output.
 */
function longestLine(name: string, value: string): number {
  const node = new MimeNode("text/plain");
  node.setHeader(name, value);
  const lines = node.buildHeaders().split("\r\n");
  return Math.max(...lines.map((l) => Buffer.byteLength(l)));
}

/** CR or LF in a value that ends up in a header (subject, addresses). */
export function crlfProblem(value: string | undefined, path: string): FieldProblem[] {
  return value !== undefined && CRLF.test(value) ? [{ path, message: "must not contain CR or LF (header injection)" }] : [];
}
