// Where a credential travels, read from the contract's security schemes: an API key in the header,
// query or cookie its scheme names; HTTP Basic and Bearer (and any other HTTP scheme) in
// Authorization; OAuth2 and OpenID Connect as a bearer token. An operation's `security` is honoured:
// `[]` or an empty alternative means no credential, and of several alternatives the first one the
// configuration has credentials for is used.
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
  // The first alternative every scheme of which has a credential; none: no credential at all.
  const chosen = alts.find((a) => a.length > 0 && a.every((s) => credentialFor(s) !== undefined && contract.securitySchemes[s]));
  if (!chosen) return out;
  for (const name of chosen) place(contract.securitySchemes[name], credentialFor(name)!, out);
  return out;
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
    // Basic: "user:password" (a single key is taken as that text, as before).
    if (/^basic$/i.test(kind)) out.headers.authorization = `Basic ${Buffer.from(secret).toString("base64")}`;
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
