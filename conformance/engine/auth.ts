// Where a credential travels, read from the contract's security schemes: an API key in the header,
// query or cookie its scheme names; HTTP Basic and Bearer (and any other HTTP scheme) in
// Authorization; OAuth2 and OpenID Connect as a bearer token. An operation's `security` is honoured:
// `[]` or an empty alternative means no credential. Of several alternatives, the first whose every
// scheme has its own configured credential wins; else the first the run's single key fits (HTTP
// Basic needs `user:password`: a bare key is not one); else the first with any credential.
import type { Contract, Operation } from "./types.ts";

/** One credential per security scheme name (config `credentials`). */
export type Credential = string | { username: string; password: string } | { token: string };

/** What to add to a request so it carries its credentials. */
export interface AuthPlacement {
  headers: Record<string, string>;
  query: [string, string][];
  cookies: [string, string][];
}

export interface AuthInput {
  /**
   * The one key of the run or of a check (an invalid key, a scoped key, `null` for none). For the
   * normal traffic it is `keys.all`, the default for every scheme without its own credential.
   */
  key: string | null | undefined;
  /** true when `key` is the run's normal key, so per-scheme credentials take precedence over it */
  isDefault: boolean;
  credentials?: Record<string, Credential>;
}

/**
 * The security requirement alternatives that apply to an operation. The operation's own `security`
 * wins over the document's; when neither declares any, every scheme of the document is an
 * alternative (contracts that define a scheme but forget to require it still get the key).
 */
function alternatives(contract: Contract, op: Operation | undefined): string[][] {
  const declared = op?.raw?.security ?? contract.raw?.security;
  if (declared !== undefined) return op?.security ?? [];
  return Object.keys(contract.securitySchemes).map((name) => [name]);
}

export function authFor(contract: Contract, op: Operation | undefined, input: AuthInput): AuthPlacement {
  const out: AuthPlacement = { headers: {}, query: [], cookies: [] };
  const alts = alternatives(contract, op);
  // `security: []` (or only `{}`): a public operation, nothing is sent.
  if (!alts.some((a) => a.length > 0)) return out;
  const credentialFor = (scheme: string): Credential | undefined => {
    if (input.key === null) return undefined;
    if (input.isDefault && input.credentials && Object.hasOwn(input.credentials, scheme)) return input.credentials[scheme];
    return input.key ?? undefined;
  };
  const chosen = choose(contract, alts, credentialFor, (s) => input.isDefault && Boolean(input.credentials && Object.hasOwn(input.credentials, s)));
  if (!chosen) return out;
  for (const name of chosen) place(contract.securitySchemes[name], credentialFor(name)!, out);
  return out;
}

const isBasic = (scheme: any) => scheme?.type === "http" && /^basic$/i.test(String(scheme.scheme ?? ""));

/** A credential HTTP Basic cannot use as it is: one text without `user:password`. */
const bareForBasic = (scheme: any, cred: Credential) => isBasic(scheme) && typeof cred === "string" && !cred.includes(":");

function choose(contract: Contract, alts: string[][], credentialFor: (s: string) => Credential | undefined, configured: (s: string) => boolean): string[] | undefined {
  const has = (a: string[]) => a.length > 0 && a.every((s) => credentialFor(s) !== undefined && contract.securitySchemes[s]);
  const fits = (a: string[]) => a.every((s) => !bareForBasic(contract.securitySchemes[s], credentialFor(s)!));
  return alts.find((a) => has(a) && a.every(configured) && fits(a)) ?? alts.find((a) => has(a) && fits(a)) ?? alts.find(has);
}

/**
 * One line per HTTP Basic scheme the run can only fill with a bare key (sent as the user name with
 * an empty password), asking for `user:password`.
 */
export function basicNotices(contract: Contract, key: string | undefined, credentials: Record<string, Credential> | undefined): string[] {
  const uses = new Map<string, number>();
  for (const op of contract.operations) {
    const alts = alternatives(contract, op);
    const credentialFor = (s: string) => (credentials && Object.hasOwn(credentials, s) ? credentials[s] : (key ?? undefined));
    const chosen = choose(contract, alts, credentialFor, (s) => Boolean(credentials && Object.hasOwn(credentials, s)));
    for (const s of chosen ?? []) if (bareForBasic(contract.securitySchemes[s], credentialFor(s)!)) uses.set(s, (uses.get(s) ?? 0) + 1);
  }
  return [...uses].map(([s, n]) => `security scheme ${s} is HTTP Basic and has no user:password (${n} operations): the key is sent as the user name with an empty password; set credentials.${s} to {"username", "password"} or "user:password"`);
}

function place(scheme: any, cred: Credential, out: AuthPlacement): void {
  const secret = typeof cred === "string" ? cred : "token" in cred ? cred.token : `${cred.username}:${cred.password}`;
  if (scheme?.type === "apiKey") {
    const name = String(scheme.name);
    if (scheme.in === "query") out.query.push([name, secret]);
    else if (scheme.in === "cookie") out.cookies.push([name, secret]);
    else out.headers[name.toLowerCase()] = secret;
    return;
  }
  if (scheme?.type === "http") {
    const kind = String(scheme.scheme ?? "bearer");
    // Basic: "user:password"; a single key is the user name with an empty password (`curl -u key:`).
    if (/^basic$/i.test(kind)) out.headers.authorization = `Basic ${Buffer.from(secret.includes(":") ? secret : `${secret}:`).toString("base64")}`;
    else if (/^bearer$/i.test(kind)) out.headers.authorization = `Bearer ${secret}`;
    else out.headers.authorization = `${kind} ${secret}`;
    return;
  }
  // oauth2, openIdConnect, and anything unknown: the token as a bearer token.
  out.headers.authorization = `Bearer ${secret}`;
}

/** The Cookie header value for the placement's cookies, joined to one already set. */
export function cookieHeader(existing: string | undefined, cookies: [string, string][]): string | undefined {
  if (!cookies.length) return existing;
  const added = cookies.map(([k, v]) => `${k}=${encodeURIComponent(v.toWellFormed())}`).join("; ");
  return existing ? `${existing}; ${added}` : added;
}

export function requiresAuth(op: Operation): boolean {
  return op.security.length > 0 && op.security.every((req) => req.length > 0);
}

/**
 * The user's own headers (-H, config `headers`) without the credentials they carry: every header a
 * security scheme of the contract names (Authorization for HTTP, OAuth2 and OpenID Connect; an
 * API key's header), Authorization always (RFC 9110: it is the credential header), and the API-key
 * cookies of a -H Cookie. A request a check sends with a credential of its own choosing ("no
 * credentials", an invalid key, a scoped key, another project's) carries that one only: a key given
 * with `-H "Authorization: Bearer ..."` in the "no credentials" request of ignored_auth would make
 * every server look like it ignores authentication.
 */
export function withoutCredentials(contract: Contract, headers: Record<string, string>): Record<string, string> {
  const named = new Set(["authorization"]);
  const cookies = new Set<string>();
  for (const scheme of Object.values<any>(contract.securitySchemes)) {
    if (scheme?.type !== "apiKey") continue;
    if (scheme.in === "header") named.add(String(scheme.name).toLowerCase());
    if (scheme.in === "cookie") cookies.add(String(scheme.name));
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (named.has(lower)) continue;
    if (lower === "cookie" && cookies.size) {
      const kept = value.split(";").map((p) => p.trim()).filter((p) => p && !cookies.has(p.split("=")[0].trim()));
      if (kept.length) out[name] = kept.join("; ");
      continue;
    }
    out[name] = value;
  }
  return out;
}
