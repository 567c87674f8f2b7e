// A method the contract does not list for a path must be answered 405 (RFC 9110 15.5.6), not
// served and not mistaken for an unknown path. Probed once per path, from its first operation.
import type { Check } from "../engine/check-api.ts";
import type { Finding } from "../engine/types.ts";

const CANDIDATES = ["GET", "POST", "PUT", "PATCH", "DELETE"];

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
    const c = ctx.sampleCase(op, 17);
    if (!c) return null;
    // `/bots/bulk` also matches `/bots/{id}`: a method served there is not unsupported.
    const concrete = op.path.replace(/\{([^}]+)\}/g, (_m, n) => String(c.pathParams[n]));
    const servedElsewhere = (method: string) =>
      ctx.contract.operations.some((o) => o.method === method && o.path !== op.path && templateMatches(o.path, concrete));
    const methods = CANDIDATES.filter((m) => !declared.has(m) && !servedElsewhere(m)).slice(0, 2);
    if (!methods.length) return null;
    const findings: Finding[] = [];
    for (const method of methods) {
      const ex = await ctx.send(op, { ...c, hasBody: false, body: undefined }, { method, probe: "unsupported_method", phase: "coverage" });
      const { status } = ex.response;
      if (status !== 405) findings.push({ message: `${method} ${op.path} answered ${status}`, expected: "405", got: String(status), request: ex.request, status });
    }
    return findings;
  },
};

function templateMatches(template: string, path: string): boolean {
  const a = template.split("/");
  const b = path.split("/");
  return a.length === b.length && a.every((seg, i) => /^\{[^}]+\}$/.test(seg) || seg === b[i]);
}
