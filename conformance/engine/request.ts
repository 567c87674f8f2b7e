// Turns a case into bytes on the wire and back into a `curl` line a person can paste.
import { cookieHeader } from "./auth.ts";
import { encodeBody, encodeForm } from "./media-types.ts";
import { contentText, cookiePairs, headerText, pathText } from "./param-style.ts";
import type { Case, Operation, PreparedRequest } from "./types.ts";

export function serializeParam(value: unknown): string | string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map((v) => scalar(v));
  return scalar(value);
}

function scalar(v: unknown): string {
  if (v === null) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Percent-encodes one value of a path segment. */
function segmentValue(text: string): string {
  // URL parsing would collapse "." and ".." segments and send the request to another route.
  return encodeURIComponent(text.toWellFormed()).replace(/\./g, (dot) => (/^\.+$/.test(text) ? "%2E" : dot));
}

/** Credentials the security scheme puts in the query or a cookie (auth.ts), beside the headers. */
export interface ExtraAuth {
  query: [string, string][];
  cookies: [string, string][];
}

export function prepareRequest(baseUrl: string, op: Operation, c: Case, defaultHeaders: Record<string, string>, auth?: ExtraAuth): PreparedRequest {
  const param = (where: string, name: string) => op.parameters.find((x) => x.in === where && x.name === name);
  // By each parameter's style (param-style.ts): `simple`, `label` (`.v`), `matrix` (`;id=v`).
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name) => pathText(param("path", name), c.pathParams[name], segmentValue));
  const qs = new URLSearchParams(op.fixedQuery);
  const fixed = new Set(qs.keys());
  for (const [k, v] of Object.entries(c.query)) {
    if (v === undefined || fixed.has(k)) continue;
    const p = param("query", k);
    if (p?.contentType) {
      qs.append(k, contentText(p, v));
      continue;
    }
    // Arrays and objects by the parameter's style and explode (default form, exploded), the same
    // rules as form bodies: Stripe's deepObject `automatic_tax[enabled]=true`, `expand[]`...
    if (v !== null && typeof v === "object") {
      const encoded = encodeForm({ [k]: v }, { [k]: { style: p?.style, explode: p?.explode } });
      for (const pair of encoded ? encoded.split("&") : []) {
        const [name, value = ""] = pair.split("=");
        qs.append(decodeURIComponent(name), decodeURIComponent(value));
      }
      continue;
    }
    const s = serializeParam(v);
    if (s !== undefined) qs.append(k, s as string);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = headerText(param("header", k), v);
  }
  // Cookie parameters, before the user's -H Cookie (which then wins as a whole) and the credentials.
  const cookies = Object.entries(c.cookies ?? {}).flatMap(([k, v]) => (v === undefined ? [] : cookiePairs(param("cookie", k), k, v)));
  if (cookies.length) headers.cookie = cookies.map(([k, v]) => `${k}=${v}`).join("; ");
  // The user's -H and the credentials win over generated header values (the runner does not
  // generate headers the user set: pinnedHeaders).
  for (const [k, v] of Object.entries(defaultHeaders)) headers[k.toLowerCase()] = v;
  const accept = acceptFor(op);
  if (headers.accept === undefined && accept) headers.accept = accept;
  for (const name of c.omitHeaders ?? []) delete headers[name.toLowerCase()];
  for (const [k, v] of auth?.query ?? []) qs.set(k, v);
  const cookie = cookieHeader(headers.cookie, auth?.cookies ?? []);
  if (cookie !== undefined) headers.cookie = cookie;
  let body: string | undefined;
  if (c.hasBody) {
    // Bytes per the declared media type (media-types.ts); a Content-Type a hook or header
    // parameter set stays, except that multipart needs the boundary it was written with.
    const encoded = encodeBody(op.body?.mediaType ?? "application/json", c.body, op.body?.schema, op.body?.encoding);
    body = encoded.body;
    if (headers["content-type"] === undefined || encoded.contentType.startsWith("multipart/")) headers["content-type"] = encoded.contentType;
  }
  const query = qs.toString();
  return { method: op.method, url: `${baseUrl.replace(/\/$/, "")}${path}${query ? `?${query}` : ""}`, headers, body };
}

/**
 * Content negotiation from the operation's responses: every media type they document, JSON ones
 * first (the suite can judge those), the others at a lower weight. Nothing when none is documented.
 */
export function acceptFor(op: Operation): string | undefined {
  const types = [...new Set(op.responses.flatMap((r) => Object.keys(r.content)))];
  if (!types.length) return undefined;
  const json = types.filter((t) => /json|^\*\/\*$/i.test(t));
  if (!json.length || json.length === types.length) return types.join(", ");
  return [...json, ...types.filter((t) => !json.includes(t)).map((t) => `${t};q=0.5`)].join(", ");
}

/**
 * The operation as a run exercises it when the user set some headers themselves (-H, config
 * `headers`): a header parameter of the same name is theirs, neither generated nor mutated.
 */
export function pinnedHeaders(op: Operation, headers: Record<string, string>): Operation {
  const names = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  if (!op.parameters.some((p) => p.in === "header" && names.has(p.name.toLowerCase()))) return op;
  return { ...op, parameters: op.parameters.filter((p) => !(p.in === "header" && names.has(p.name.toLowerCase()))) };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function toCurl(req: PreparedRequest): string {
  // `curl -X HEAD` waits for the body the Content-Length announces, which never comes: `-I` is HEAD.
  const head = req.method === "HEAD" && req.body === undefined;
  const parts = head ? ["curl", "-I", shellQuote(req.url)] : ["curl", "-X", req.method, shellQuote(req.url)];
  for (const [k, v] of Object.entries(req.headers)) parts.push("-H", shellQuote(`${k}: ${v}`));
  if (req.body !== undefined) parts.push("--data-raw", shellQuote(req.body));
  return parts.join(" ");
}
