// A method the contract does not list for a path must be answered 405 with an `Allow` header
// (RFC 9110 15.5.6), not served and not mistaken for an unknown path. Every method is tried that
// the path does not declare: the usual ones, TRACE, and extension methods (SEARCH, PROPFIND),
// which routers that know a fixed list tend to answer 404. CONNECT is left out: an HTTP client
// turns it into a tunnel. OPTIONS may instead be answered 2xx with `Allow` (RFC 9110 9.3.7).
// Probed once per path, from its first operation.
import type { Check } from "../engine/check-api.ts";
import type { Finding } from "../engine/types.ts";

const CANDIDATES = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "SEARCH", "PROPFIND"];

export const unsupportedMethod: Check = {
  name: "unsupported_method",
  title: "Unsupported method not answered 405",
  severity: "medium",
  stateless: true,
  phase: "coverage",
  async probe(ctx, op) {
    const siblings = ctx.contract.operations.filter((o) => o.path === op.path);
    if (siblings[0].id !== op.id) return null;
    const declared = new Set(siblings.map((o) => o.method));
    // Servers answer HEAD wherever they answer GET.
    if (declared.has("GET")) declared.add("HEAD");
    const c = ctx.sampleCase(op, 17);
    if (!c) return null;
    // `/bots/bulk` also matches `/bots/{id}`: a method served there is not unsupported.
    const concrete = op.path.replace(/\{([^}]+)\}/g, (_m, n) => String(c.pathParams[n]));
    const servedElsewhere = (method: string): boolean =>
      ctx.contract.operations.some((o) => o.method === method && o.path !== op.path && templateMatches(o.path, concrete)) ||
      // HEAD is answered wherever GET is, also through another template.
      (method === "HEAD" && servedElsewhere("GET"));
    const methods = CANDIDATES.filter((m) => !declared.has(m) && !servedElsewhere(m));
    if (!methods.length) return null;
    const findings: Finding[] = [];
    for (const method of methods) {
      const ex = await ctx.send(op, { ...c, hasBody: false, body: undefined }, { method, probe: "unsupported_method" });
      const { status } = ex.response;
      const allow = ex.response.headers.allow;
      if (method === "OPTIONS" && status >= 200 && status < 300 && allow) continue;
      if (status !== 405) findings.push({ message: `${method} ${op.path} answered ${status}`, expected: "405", got: String(status), request: ex.request, status });
      else if (!allow && ctx.config.requireAllowHeader !== false) findings.push({ title: "405 without Allow", message: `${method} ${op.path} answered 405 without an Allow header`, expected: `Allow: ${[...declared].filter((m) => m !== "HEAD" || declared.has("GET")).sort().join(", ")}`, got: "no Allow header", request: ex.request, status });
    }
    return findings;
  },
};

function templateMatches(template: string, path: string): boolean {
  const a = template.split("/");
  const b = path.split("/");
  return a.length === b.length && a.every((seg, i) => /^\{[^}]+\}$/.test(seg) || seg === b[i]);
}
