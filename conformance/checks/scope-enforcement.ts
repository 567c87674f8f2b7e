// Each operation names the one scope it needs. A key holding every other scope must get 403; a
// key holding only that scope must not be refused for want of permission (401/403).
import type { Check, CheckContext } from "../engine/check-api.ts";
import type { Finding, Operation } from "../engine/types.ts";

/** Every scope but the operation's, and the operation's alone. */
const scopeSets = (ctx: CheckContext, op: Operation): string[][] => (op.scope ? [ctx.contract.scopes.filter((s) => s !== op.scope), [op.scope]] : []);

export const scopeEnforcement: Check = {
  name: "scope_enforcement",
  title: "Scope not enforced",
  severity: "critical",
  stateless: false,
  phase: "coverage",
  scopeSets,
  async probe(ctx, op) {
    if (!op.scope) return null;
    const [others, one] = scopeSets(ctx, op);
    const [without, only] = await Promise.all([ctx.keys.forScopes(others), ctx.keys.forScopes(one)]);
    if (!without && !only) return null;
    const c = ctx.sampleCase(op, 19);
    if (!c) return null;
    const findings: Finding[] = [];
    if (without) {
      const ex = await ctx.send(op, c, { key: without, probe: "scope_enforcement" });
      if (ex.response.status !== 403) findings.push({ message: `a key with every scope but ${op.scope} answered ${ex.response.status}`, expected: "403", got: String(ex.response.status), request: ex.request, status: ex.response.status });
    }
    if (only) {
      const ex = await ctx.send(op, c, { key: only, probe: "scope_enforcement" });
      if (ex.response.status === 401 || ex.response.status === 403) {
        findings.push({ title: "Required scope refused", message: `a key with only ${op.scope} answered ${ex.response.status}`, expected: "not 401/403", got: String(ex.response.status), request: ex.request, status: ex.response.status });
      }
    }
    return findings;
  },
};
