// Who may show webmail in a frame (decision M11). The seed lets a project open a login link "in a
// new tab or an iframe" of its own application; any other site framing a signed-in mailbox could
// dress it up and trick the reader into clicks (clickjacking). So a login link names the origins
// of the application that frames it, its session's pages allow exactly those, and a session whose
// link named none may be framed by no one.
import type { FieldProblem } from "../http/errors.ts";

export const MAX_FRAME_ANCESTORS = 5;

// The origins accepted, exactly: the contract's pattern of `frameAncestors` items says the same
// (spec/webmail/routes.tsp; frame-ancestors.test.ts holds the two equal), so a value the contract
// allows is never refused. Written as `location.origin` gives it: lowercase, an https host (a DNS
// name whose last label starts with a letter, a dotted-decimal IPv4 address, or [::1]) or http
// only where no network sits between the browser and the page (localhost, 127.x.x.x, [::1]), a
// port 1-65535 (a default one is dropped), an optional trailing slash, nothing else.
const OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
const DNS_NAME = `(${LABEL}\\.)*[a-z]([a-z0-9-]{0,61}[a-z0-9])?`;
const PORT = "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?";
const HTTPS_HOST = `(${DNS_NAME}|${OCTET}(\\.${OCTET}){3}|\\[::1\\])`;
const LOOPBACK_HOST = `(localhost|127(\\.${OCTET}){3}|\\[::1\\])`;
export const FRAME_ANCESTOR_PATTERN = `^(https://${HTTPS_HOST}|http://${LOOPBACK_HOST})${PORT}/?$`;
// No flags: the expression is ASCII classes only, read the same with ajv's unicode flag.
const FRAME_ANCESTOR = new RegExp(FRAME_ANCESTOR_PATTERN);
const LOOPBACK = new RegExp(`^${LOOPBACK_HOST}$`);

/**
 * The origins as the pages will name them (`scheme://host[:port]`, duplicates dropped), or the
 * problems of the ones that are not an origin a CSP source list can hold exactly.
 */
export function readFrameAncestors(given: string[] | undefined, path: string): { origins: string[]; problems: FieldProblem[] } {
  const origins: string[] = [];
  const problems: FieldProblem[] = [];
  (given ?? []).forEach((value, i) => {
    if (!FRAME_ANCESTOR.test(value)) problems.push({ path: `${path}.${i}`, message: originProblem(value) });
    else {
      const origin = originOf(value);
      if (!origins.includes(origin)) origins.push(origin);
    }
  });
  if ((given?.length ?? 0) > MAX_FRAME_ANCESTORS) problems.push({ path, message: `at most ${MAX_FRAME_ANCESTORS} origins` });
  return { origins, problems };
}

/** A matching value as the browser serializes its origin: no trailing slash, no default port. */
function originOf(value: string): string {
  const origin = value.replace(/\/$/, "");
  const defaultPort = origin.startsWith("https:") ? ":443" : ":80";
  return origin.endsWith(defaultPort) ? origin.slice(0, -defaultPort.length) : origin;
}

const NOT_AN_ORIGIN = "is not an origin (scheme://host[:port], such as https://app.example.com; a DNS name, a dotted IPv4 address or [::1])";

/**
 * Why a value that does not match is refused: the nearest of the rules it breaks. Through the API
 * the request validator refuses it first, with the contract's description; these name the rule for
 * any caller that reaches this check another way.
 */
function originProblem(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return NOT_AN_ORIGIN;
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.test(url.hostname))) {
    return "must be an https origin (http only for a loopback host: localhost, 127.x.x.x, [::1])";
  }
  // A path, query or user name would be dropped silently by the CSP source list.
  if (url.origin !== originOf(value.toLowerCase()) || url.username || url.password || url.search || url.hash) {
    return `must be an origin alone, such as ${url.origin} (no path, query, fragment or user)`;
  }
  if (value !== value.toLowerCase()) return `must be lowercase, as the browser's location.origin gives it: ${url.origin}`;
  // A wildcard host (`https://*.example.com`) would be read by the CSP as a pattern: explicit names only.
  return NOT_AN_ORIGIN;
}

/** The CSP directive of a session's pages, and whether X-Frame-Options may say DENY as well. */
export function frameAncestorsDirective(origins: string[]): { directive: string; deny: boolean } {
  return origins.length ? { directive: `frame-ancestors ${origins.join(" ")}`, deny: false } : { directive: "frame-ancestors 'none'", deny: true };
}
