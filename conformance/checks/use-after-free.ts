// After a successful DELETE the resource is gone: reading it must answer 404 and its list must no
// longer mention it. DELETEs that are state transitions (cancel keeps a message readable) are
// recognised by a `status` property in their response, or marked `softDelete` in the config.
import type { Check } from "../engine/check-api.ts";
import { createdId, createResource, isPaginated, linkedCase, listMentions } from "../engine/stateful.ts";
import type { Finding, Operation } from "../engine/types.ts";

function isSoftDelete(op: Operation, configured: boolean | undefined): boolean {
  if (configured !== undefined) return configured;
  const ok = op.responses.find((r) => r.status.startsWith("2"));
  const schema: any = ok && Object.values(ok.content)[0]?.schema;
  return Boolean(schema?.properties?.status);
}

export const useAfterFree: Check = {
  name: "use_after_free",
  title: "Deleted resource is still available",
  severity: "high",
  stateless: false,
  phase: "stateful",
  async probe(ctx, op) {
    const res = ctx.resources.resources.find((r) => r.creator.id === op.id);
    const deleter = res?.deleters.find((d) => !isSoftDelete(d.operation, ctx.config.operations[d.operation.id]?.softDelete));
    if (!res || !deleter) return null;
    const created = await createResource(ctx, res);
    if (!created) return null;
    const del = linkedCase(ctx, deleter, created.env);
    if (!del) return null;
    const gone = await ctx.send(deleter.operation, del, { phase: "stateful" });
    if (gone.response.status < 200 || gone.response.status >= 300) return null;
    const findings: Finding[] = [];
    for (const target of res.readers) {
      const c = linkedCase(ctx, target, created.env);
      if (!c) continue;
      const ex = await ctx.send(target.operation, c, { phase: "stateful" });
      if (ex.response.status !== 404 && ex.response.status !== 410) {
        findings.push({ message: `${target.operation.id} answered ${ex.response.status} after ${deleter.operation.id} deleted it`, expected: "404", got: String(ex.response.status), request: ex.request, status: ex.response.status });
      }
    }
    const id = createdId(res, created.env);
    if (res.lister && id !== undefined && !isPaginated(res.lister) && !res.lister.parameters.some((p) => p.in === "path")) {
      const c = ctx.sampleCase(res.lister, 29);
      if (c) {
        const ex = await ctx.send(res.lister, c, { phase: "stateful" });
        if (ex.response.status === 200 && listMentions(ex.response.json, id)) {
          findings.push({ title: "Deleted resource still listed", message: `${res.lister.id} still lists ${JSON.stringify(id)} after ${deleter.operation.id}`, expected: "no such item", got: ex.response.text.slice(0, 200), request: ex.request, status: 200 });
        }
      }
    }
    return findings;
  },
};
