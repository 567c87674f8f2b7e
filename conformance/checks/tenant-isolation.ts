// Data of one project is invisible to another: a second project's key gets 404 on every resource
// the first created, and cannot use the first project's fixtures (domains, zones, addresses).
import type { Check } from "../engine/check-api.ts";
import { createResource, linkedCase } from "../engine/stateful.ts";
import type { Finding, Operation } from "../engine/types.ts";

function usesOwnedValue(op: Operation, owned: string[]): boolean {
  const bodyProps = Object.keys((op.body?.schema as any)?.properties ?? {});
  return op.parameters.some((p) => p.in === "path" && owned.includes(p.name)) || bodyProps.some((p) => owned.includes(p));
}

export const tenantIsolation: Check = {
  name: "tenant_isolation",
  title: "Another project's data is reachable",
  severity: "critical",
  stateless: false,
  phase: "stateful",
  async probe(ctx, op) {
    const other = ctx.keys.otherProject;
    if (!other) return null;
    const findings: Finding[] = [];
    let applicable = false;
    const res = ctx.resources.resources.find((r) => r.creator.id === op.id);
    if (res) {
      const created = await createResource(ctx, res);
      if (created) {
        for (const target of [...res.readers, ...res.deleters]) {
          const c = linkedCase(ctx, target, created.env);
          if (!c) continue;
          applicable = true;
          const ex = await ctx.send(target.operation, c, { key: other, keyRole: "other-project" });
          if (ex.response.status !== 404) {
            findings.push({ message: `${target.operation.id} with another project's key answered ${ex.response.status} for a resource of the first project`, expected: "404", got: String(ex.response.status), request: ex.request, status: ex.response.status });
          }
        }
      }
    }
    const owned = ctx.config.ownedValues ?? Object.keys(ctx.config.values);
    if (usesOwnedValue(op, owned)) {
      const c = ctx.sampleCase(op, 31);
      if (c) {
        applicable = true;
        const ex = await ctx.send(op, c, { key: other, keyRole: "other-project" });
        if (ex.response.status < 400) {
          findings.push({ title: "Another project's fixture accepted", message: `${op.id} with another project's key succeeded (${ex.response.status}) on the first project's ${owned.join("/")}`, expected: "403 or 404", got: String(ex.response.status), request: ex.request, status: ex.response.status });
        }
      }
    }
    return applicable ? findings : null;
  },
};
