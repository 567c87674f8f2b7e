// Custom headers may not take over what the composer, the signer or the list headers own, and
// nothing that reaches a header may carry CR or LF (header injection, issue 10).
import type { FieldProblem } from "../http/errors.ts";

const RESERVED = /^(from|to|cc|bcc|subject|message-id|date|dkim-signature|return-path|mime-version|list-unsubscribe.*|content-.*)$/i;
// RFC 5322 field-name: printable US-ASCII except the colon.
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
const CRLF = /[\r\n]/;

export function headerProblems(headers: Record<string, string> | undefined, path: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    const at = `${path}.${name}`;
    if (CRLF.test(name) || CRLF.test(value)) problems.push({ path: at, message: "must not contain CR or LF (header injection)" });
    else if (!FIELD_NAME.test(name)) problems.push({ path: at, message: "is not a valid header name (printable ASCII without colon or space)" });
    else if (RESERVED.test(name)) problems.push({ path: at, message: "is set by the platform and cannot be a custom header" });
  }
  return problems;
}

/** CR or LF in a value that ends up in a header (subject, addresses). */
export function crlfProblem(value: string | undefined, path: string): FieldProblem[] {
  return value !== undefined && CRLF.test(value) ? [{ path, message: "must not contain CR or LF (header injection)" }] : [];
}
