// Parameters travel in the request line and header lines, which HTTP servers cap before any code
// of theirs runs: nginx and Apache at 8 KB a line, Node at 16 KB for all headers (request line
// included). Discord's contract allows 152,133 characters in a path segment, Adyen's 20,000 in a
// header: the maxLength boundary of such a parameter (and the maxLength + 1 negative case) is
// answered 414/431 or a reset by the HTTP layer, which says nothing about the implementation and
// used to be reported as a critical "no response" or an undocumented 431 (decision CL12). Those
// values are not sent; one WARNING names the parameters. Bodies have no such cap.
import type { Operation, Parameter } from "./types.ts";

/** The longest text one parameter value may have: two of them still fit an 8 KB line. */
export const PARAMETER_TEXT_LIMIT = 4096;

/** Whether a parameter value is longer than a request line or header line holds. */
export function tooLongForALine(value: unknown): boolean {
  if (typeof value === "string") return value.length > PARAMETER_TEXT_LIMIT;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + String(v).length + 1, 0) > PARAMETER_TEXT_LIMIT;
  return false;
}

const maxLengthOf = (p: Parameter): number | undefined => {
  const s: any = p.schema;
  return typeof s === "object" && typeof s?.maxLength === "number" ? s.maxLength : undefined;
};

/** The WARNING for parameters whose maxLength boundary is not sent, or undefined when there are none. */
export function oversizedParametersNotice(ops: Operation[]): string | undefined {
  const named = ops.flatMap((op) => op.parameters.filter((p) => (maxLengthOf(p) ?? 0) > PARAMETER_TEXT_LIMIT).map((p) => `${op.id} ${p.in}:${p.name} (maxLength ${maxLengthOf(p)})`));
  if (!named.length) return undefined;
  const shown = named.slice(0, 5).join(", ") + (named.length > 5 ? `, and ${named.length - 5} more` : "");
  return `${named.length} parameters allow more than ${PARAMETER_TEXT_LIMIT} characters, more than an HTTP request line or header line holds (servers answer 414/431 or reset before the implementation sees it): their maxLength boundary and maxLength + 1 cases are not sent: ${shown}`;
}
