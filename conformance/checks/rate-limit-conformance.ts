// A key with a small limit: RateLimit-Remaining counts down while requests are allowed, and once
// past the limit the server answers 429 with Retry-After. Runs once, on the first operation that
// needs no inputs (or the one the config names).
import type { Check } from "../engine/check-api.ts";
import type { Finding, Operation } from "../engine/types.ts";

function target(ctx: Parameters<NonNullable<Check["probe"]>>[0]): Operation | undefined {
  const named = ctx.config.rateLimit?.operationId;
  if (named) return ctx.operation(named);
  return ctx.contract.operations.find((o) => o.method === "GET" && !o.parameters.some((p) => p.required) && o.security.length > 0);
}

export const rateLimitConformance: Check = {
  name: "rate_limit_conformance",
  title: "Rate limit not enforced",
  severity: "high",
  stateless: false,
  phase: "stateful",
  async probe(ctx, op) {
    const key = ctx.keys.lowLimit;
    if (!key || target(ctx)?.id !== op.id) return null;
    const c = ctx.sampleCase(op, 37);
    if (!c) return null;
    const max = ctx.config.rateLimit?.maxRequests ?? 300;
    const findings: Finding[] = [];
    let previous: number | undefined;
    let limit: number | undefined;
    let sent = 0;
    for (let i = 0; i < max; i++) {
      sent++;
      const ex = await ctx.send(op, c, { key, keyRole: "low-limit", probe: "rate_limit_conformance" });
      const h = ex.response.headers;
      if (ex.response.status === 429) {
        const retry = h["retry-after"];
        if (!retry || !(/^\d+$/.test(retry) || !Number.isNaN(Date.parse(retry)))) {
          findings.push({ title: "429 without Retry-After", message: `429 carried Retry-After ${JSON.stringify(retry)}`, expected: "Retry-After: seconds or HTTP date", got: String(retry), request: ex.request, status: 429 });
        }
        return findings;
      }
      const remaining = Number(h["ratelimit-remaining"]);
      limit ??= Number(h["ratelimit-limit"]) || undefined;
      if (h["ratelimit-remaining"] === undefined || Number.isNaN(remaining)) {
        findings.push({ title: "RateLimit-Remaining missing", message: `${ex.response.status} without a numeric RateLimit-Remaining`, expected: "RateLimit-Remaining", got: String(h["ratelimit-remaining"]), request: ex.request, status: ex.response.status });
        return findings;
      }
      // An increase is a new window; standing still is the defect.
      if (previous !== undefined && remaining === previous) {
        findings.push({ title: "RateLimit-Remaining does not count down", message: `RateLimit-Remaining went from ${previous} to ${remaining}`, expected: `< ${previous}`, got: String(remaining), request: ex.request, status: ex.response.status });
        return findings;
      }
      previous = remaining;
      // The window is known: stop two requests past it rather than at the generic maximum.
      if (limit !== undefined && i > limit + 2) break;
    }
    // Say what was sent: the loop stops at the configured maximum even when the limit is higher.
    findings.push({ message: `no 429 after ${sent} requests${limit !== undefined ? ` (RateLimit-Limit ${limit})` : ""}`, expected: "429 once past the limit", got: "never 429", request: undefined });
    return findings;
  },
};
