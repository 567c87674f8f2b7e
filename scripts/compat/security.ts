// Security requirements judged by whether the credentials an existing client holds still work.
// An operation's effective security is its own `security`, else the document's (global security
// reaches every operation that does not override it): the OR of requirements, each the AND of
// schemes with the scopes it asks for; an empty requirement (or none at all) is anonymous access.
// A client holding what one old requirement asks for keeps working when one new requirement asks
// for no more: the same schemes (or a renamed one defined alike), no new scope, and each scheme's
// definition unchanged in how the credential is sent or obtained. For webhooks and callbacks the
// platform presents the credential and the receiver checks it, so the sides swap.
import type { Doc } from "./load.ts";
import { deref } from "./resolve.ts";

type Requirement = Map<string, Set<string>>;
export type Emit = (id: string, message: string, ptr: (string | number)[]) => void;

function effective(doc: Doc, op: Doc): { list: Requirement[]; global: boolean } {
  const own = Array.isArray(op.security);
  const raw = own ? op.security : doc.security;
  if (!Array.isArray(raw) || raw.length === 0) return { list: [new Map()], global: !own };
  return {
    list: raw.map(
      (r: Doc) =>
        new Map(Object.entries(r ?? {}).map(([k, v]) => [k, new Set(Array.isArray(v) ? v : [])])),
    ),
    global: !own,
  };
}

const schemeOf = (doc: Doc, name: string): Doc | undefined =>
  deref(doc, doc.components?.securitySchemes?.[name]).node ?? undefined;

/** Why a credential for scheme a no longer works for scheme b, or undefined when it does. */
export function schemeBreak(a: Doc | undefined, b: Doc | undefined): string | undefined {
  if (!a || !b) return !a && !b ? undefined : "the scheme is no longer defined";
  const low = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : v);
  if (a.type !== b.type) return `type ${a.type} -> ${b.type}`;
  if (a.type === "apiKey") {
    if (a.in !== b.in) return `in ${a.in} -> ${b.in}`;
    const name = (s: Doc) => (s.in === "header" ? low(s.name) : s.name);
    if (name(a) !== name(b)) return `name ${a.name} -> ${b.name}`;
  }
  if (a.type === "http" && low(a.scheme) !== low(b.scheme))
    return `http scheme ${a.scheme} -> ${b.scheme}`;
  if (a.type === "openIdConnect" && a.openIdConnectUrl !== b.openIdConnectUrl)
    return `openIdConnectUrl ${a.openIdConnectUrl} -> ${b.openIdConnectUrl}`;
  if (a.type === "oauth2") {
    const f1 = a.flows ?? {};
    const f2 = b.flows ?? {};
    for (const flow of Object.keys(f1)) {
      if (!f2[flow]) return `OAuth flow ${flow} removed`;
      for (const url of ["authorizationUrl", "tokenUrl", "refreshUrl"])
        if (f1[flow]?.[url] !== f2[flow]?.[url])
          return `OAuth flow ${flow} ${url} ${f1[flow]?.[url] ?? "none"} -> ${f2[flow]?.[url] ?? "none"}`;
    }
  }
  return undefined;
}

interface Side {
  doc: Doc;
  req: Requirement;
}

/**
 * The holder's scheme that stands for `name` of the required side: the same name, or a scheme
 * renamed (only in one document each) and defined alike.
 */
function holderScheme(holder: Side, required: Side, name: string): string | undefined {
  if (holder.req.has(name)) return name;
  const defined = (doc: Doc, n: string) => !!doc.components?.securitySchemes?.[n];
  if (defined(holder.doc, name)) return undefined;
  // Defined alike: nothing that decides how the credential is sent or obtained differs
  // (descriptions and hints may).
  const def = schemeOf(required.doc, name);
  return [...holder.req.keys()].find(
    (k) =>
      !defined(required.doc, k) && !!def && schemeBreak(schemeOf(holder.doc, k), def) === undefined,
  );
}

/** What `required` asks for that `holder` lacks: nothing when the holder's credentials suffice. */
function lacks(
  holder: Side,
  required: Side,
): { kind: "scope" | "scheme" | "changed"; detail: string }[] {
  const out: { kind: "scope" | "scheme" | "changed"; detail: string }[] = [];
  for (const [name, scopes] of required.req) {
    const h = holderScheme(holder, required, name);
    if (h === undefined) {
      out.push({ kind: "scheme", detail: `scheme ${name}` });
      continue;
    }
    const why = schemeBreak(schemeOf(holder.doc, h), schemeOf(required.doc, name));
    if (why) out.push({ kind: "changed", detail: `scheme ${name}: ${why}` });
    for (const s of scopes)
      if (!holder.req.get(h)!.has(s)) out.push({ kind: "scope", detail: `scope ${s} of ${name}` });
  }
  return out;
}

const label = (r: Requirement) => [...r.keys()].sort().join(" AND ") || "anonymous";

/**
 * Every old way of authenticating that no new requirement accepts, as an ERR finding on the
 * operation (for a webhook or callback, every new requirement the receivers' old check refuses).
 */
export function compareEffectiveSecurity(
  base: Doc,
  rev: Doc,
  a: Doc,
  b: Doc,
  swapped: boolean,
  opPtr: (string | number)[],
  emit: Emit,
): void {
  const e1 = effective(base, a);
  const e2 = effective(rev, b);
  const ptr = e2.global ? ["security"] : [...opPtr, "security"];
  // holders: the credentials that exist today; required: what will be asked for.
  const holders: Side[] = (swapped ? e2.list : e1.list).map((req) => ({
    doc: swapped ? rev : base,
    req,
  }));
  const required: Side[] = (swapped ? e1.list : e2.list).map((req) => ({
    doc: swapped ? base : rev,
    req,
  }));
  for (const h of holders) {
    if (required.some((r) => lacks(h, r).length === 0)) continue;
    if (h.req.size === 0 && swapped) {
      emit(
        "api-security-requirement-removed",
        `the platform may now call without credentials: receivers checking ${required.map((r) => label(r.req)).join(" OR ")} refuse it`,
        ptr,
      );
      continue;
    }
    if (h.req.size === 0) {
      emit(
        "api-security-requirement-added",
        `anonymous access ended: now requires ${required.map((r) => label(r.req)).join(" OR ")}`,
        ptr,
      );
      continue;
    }
    // The closest requirement says what went wrong: the one that lacks the fewest things.
    const gaps = required
      .map((r) => ({ r, gap: lacks(h, r) }))
      .sort((x, y) => x.gap.length - y.gap.length);
    const sameSchemes = gaps.find(({ r }) => [...r.req.keys()].every((k) => h.req.has(k)));
    const gap = (sameSchemes ?? gaps[0])?.gap ?? [];
    const kinds = new Set(gap.map((g) => g.kind));
    const superset = gaps.find(({ r }) => [...h.req.keys()].every((k) => r.req.has(k)));
    const id = kinds.has("changed")
      ? "api-security-scheme-changed-for-operation"
      : sameSchemes && kinds.has("scope")
        ? "api-security-requirement-scope-added"
        : superset
          ? "api-security-requirement-scheme-added"
          : "api-security-requirement-removed";
    const detail =
      id === "api-security-requirement-scheme-added" && superset
        ? superset.gap.map((g) => g.detail).join(", ")
        : gap.map((g) => g.detail).join(", ");
    emit(
      id,
      `${swapped ? "receivers accepting" : "clients authenticating with"} ${label(h.req)}: ${
        id === "api-security-requirement-removed"
          ? "no requirement accepts these credentials any more"
          : `now needs ${detail}`
      }`,
      ptr,
    );
  }
}
