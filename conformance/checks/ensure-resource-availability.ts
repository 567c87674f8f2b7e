// A resource the API just created must be reachable at once: every operation the creator's links
// point to must not answer 404, and an unpaginated list must include it.
import type { Check } from "../engine/check-api.ts";
import { createdId, createResource, isPaginated, linkedCase, listMentions, requiredQueryOnly } from "../engine/stateful.ts";
import type { Finding } from "../engine/types.ts";

export const ensureResourceAvailability: Check = {
  name: "ensure_resource_availability",
  title: "Created resource is not available",
  severity: "high",
  stateless: false,
  phase: "stateful",
  async probe(ctx, op) {
    const res = ctx.resources.resources.find((r) => r.creator.id === op.id);
    if (!res) return null;
    const created = await createResource(ctx, res);
    if (!created) return null;
    const findings: Finding[] = [];
    for (const target of res.readers) {
      const c = linkedCase(ctx, target, created.env);
      if (!c) continue;
      const ex = await ctx.send(target.operation, c, );
      if (ex.response.status === 404 || ex.response.status === 410) {
        findings.push({ message: `${target.operation.id} answered ${ex.response.status} right after ${op.id} created it`, expected: "2xx", got: String(ex.response.status), request: ex.request, status: ex.response.status });
      }
    }
    const id = createdId(res, created.env);
    if (res.lister && id !== undefined && !isPaginated(res.lister) && !res.lister.parameters.some((p) => p.in === "path")) {
      const sampled = ctx.sampleCase(res.lister, 23);
      if (sampled) {
        const ex = await ctx.send(res.lister, requiredQueryOnly(res.lister, sampled));
        if (ex.response.status === 200 && !listMentions(ex.response.json, id)) {
          findings.push({ title: "Created resource missing from its list", message: `${res.lister.id} does not list ${JSON.stringify(id)} created by ${op.id}`, expected: `an item with ${JSON.stringify(id)}`, got: ex.response.text.slice(0, 200), request: ex.request, status: 200 });
        }
      }
    }
    return findings;
  },
};
