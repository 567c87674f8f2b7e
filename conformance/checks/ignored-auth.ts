// An operation that requires credentials must refuse a request without them and one with a key
// the server never issued. When the contract documents 401 the answer must be exactly 401.
import { requiresAuth } from "../engine/auth.ts";
import type { Check } from "../engine/check-api.ts";
import { responseFor } from "../engine/response-spec.ts";
import type { Finding } from "../engine/types.ts";

export const ignoredAuth: Check = {
  name: "ignored_auth",
  title: "Authentication declared but not enforced",
  severity: "critical",
  stateless: false,
  phase: "coverage",
  async probe(ctx, op) {
    if (!requiresAuth(op)) return null;
    const c = ctx.sampleCase(op, 11);
    if (!c) return null;
    const strict = responseFor(op, 401)?.status === "401";
    const findings: Finding[] = [];
    for (const [label, key, keyRole] of [["no credentials", null, "none"], ["an invalid key", ctx.keys.invalid, "invalid"]] as const) {
      const ex = await ctx.send(op, c, { key, keyRole, probe: "ignored_auth" });
      const { status } = ex.response;
      const bad = strict ? status !== 401 : status < 400;
      if (bad) findings.push({ message: `request with ${label} answered ${status}`, expected: strict ? "401" : "4xx", got: String(status), request: ex.request, status });
    }
    return findings;
  },
};
