// Finding the documented response for a status: exact code first, then `4XX`, then `default`.
import type { Exchange, Operation, ResponseSpec } from "./types.ts";

export function responseFor(op: Operation, status: number): ResponseSpec | undefined {
  const code = String(status);
  return (
    op.responses.find((r) => r.status === code) ??
    op.responses.find((r) => r.status === `${code[0]}XX`) ??
    op.responses.find((r) => r.status === "DEFAULT")
  );
}

export function documentedStatuses(op: Operation): string[] {
  return op.responses.map((r) => r.status);
}

/** Documented statuses no response matched (`4XX` is matched by any 4xx; `default` never counts). */
export function unseenStatuses(documented: string[], seen: (number | string)[]): string[] {
  return documented.filter((d) => d !== "DEFAULT" && !seen.some((s) => String(s) === d || (d.endsWith("XX") && String(s)[0] === d[0])));
}

export function mediaType(headerValue: string | undefined): string | undefined {
  return headerValue?.split(";")[0].trim().toLowerCase() || undefined;
}

/** Media type match with the wildcards OpenAPI allows: `application/*`, `*\/*`. */
export function mediaMatches(documented: string, actual: string): boolean {
  const [dt, ds] = documented.toLowerCase().split("/");
  const [at, as] = actual.split("/");
  return (dt === "*" || dt === at) && (ds === "*" || ds === as);
}

/** Exchanges that exercise a documented operation as documented (not an intentionally wrong method). */
export function asDocumented(ex: Exchange): boolean {
  return ex.probe !== "unsupported_method" && ex.response.noResponse === undefined;
}

/** Generated data sent with the normal key: the only traffic the data-acceptance checks judge. */
export function judgesData(ex: Exchange): boolean {
  return ex.keyRole === "default" && !ex.probe && ex.response.status !== 429 && ex.response.noResponse === undefined;
}

export const short = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}…` : text);
