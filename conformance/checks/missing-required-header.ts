// Leaving out a header parameter the contract marks required must be refused with a 4xx.
import type { Check } from "../engine/check-api.ts";
import type { Finding } from "../engine/types.ts";

export const missingRequiredHeader: Check = {
  name: "missing_required_header",
  title: "Missing required header accepted",
  severity: "medium",
  stateless: false,
  phase: "coverage",
  async probe(ctx, op) {
    const required = op.parameters.filter((p) => p.in === "header" && p.required);
    if (!required.length) return null;
    const c = ctx.sampleCase(op, 13);
    if (!c) return null;
    const findings: Finding[] = [];
    for (const p of required) {
      const headers = { ...c.headers };
      delete headers[p.name];
      const ex = await ctx.send(op, { ...c, headers, omitHeaders: [p.name], mode: "negative", mutation: `header ${p.name} missing` }, { probe: "missing_required_header" });
      const { status } = ex.response;
      if (status < 400 || status >= 500) findings.push({ message: `without header ${p.name} the server answered ${status}`, expected: "4xx", got: String(status), request: ex.request, status });
    }
    return findings;
  },
};
