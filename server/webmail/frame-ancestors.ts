// Who may show webmail in a frame (decision M11). The seed lets a project open a login link "in a
// new tab or an iframe" of its own application; any other site framing a signed-in mailbox could
// dress it up and trick the reader into clicks (clickjacking). So a login link names the origins
// of the application that frames it, its session's pages allow exactly those, and a session whose
// link named none may be framed by no one.
import type { FieldProblem } from "../http/errors.ts";

export const MAX_FRAME_ANCESTORS = 5;

// http only where no network sits between the browser and the page: a developer's own machine.
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The origins as the pages will name them (`scheme://host[:port]`, duplicates dropped), or the
 * problems of the ones that are not an origin a CSP source list can hold exactly.
 */
export function readFrameAncestors(given: string[] | undefined, path: string): { origins: string[]; problems: FieldProblem[] } {
  const origins: string[] = [];
  const problems: FieldProblem[] = [];
  (given ?? []).forEach((value, i) => {
    const problem = originProblem(value);
    if (problem) problems.push({ path: `${path}[${i}]`, message: problem });
    else if (!origins.includes(new URL(value).origin)) origins.push(new URL(value).origin);
  });
  if ((given?.length ?? 0) > MAX_FRAME_ANCESTORS) problems.push({ path, message: `at most ${MAX_FRAME_ANCESTORS} origins` });
  return { origins, problems };
}

function originProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an origin (scheme://host[:port], such as https://app.example.com)";
  }
  // A wildcard host (`https://*.example.com`) would be read by the CSP as a pattern: explicit names only.
  if (!/^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)) return "is not an origin (scheme://host[:port], such as https://app.example.com)";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOST.test(url.hostname))) {
    return "must be an https origin (http only for a loopback host: localhost, 127.x.x.x, [::1])";
  }
  // An origin only: a path, query or user name would be dropped silently by the CSP source list.
  if (url.origin !== value.replace(/\/$/, "").toLowerCase() || url.username || url.password || url.search || url.hash) {
    return `must be an origin alone, such as ${url.origin} (no path, query, fragment or user)`;
  }
  return undefined;
}

/** The CSP directive of a session's pages, and whether X-Frame-Options may say DENY as well. */
export function frameAncestorsDirective(origins: string[]): { directive: string; deny: boolean } {
  return origins.length ? { directive: `frame-ancestors ${origins.join(" ")}`, deny: false } : { directive: "frame-ancestors 'none'", deny: true };
}
