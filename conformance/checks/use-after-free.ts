// After a successful DELETE the resource is gone, for every way of addressing it: the same DELETE
// again, every other documented operation on its path and below it (a sub-resource list, a state
// change such as /shared, a member to add), and its readers answer 404 (or 410); its list no
// longer mentions it. DELETEs that are state transitions (cancel keeps a message readable) are
// recognised by a `status` property in their response, or marked `softDelete` in the config.
import type { Check, CheckContext } from "../engine/check-api.ts";
import { createdId, createResource, isPaginated, isSoftDelete, linkedCase, listMentions, requiredQueryOnly } from "../engine/stateful.ts";
import type { Case, Finding, Operation } from "../engine/types.ts";

const GONE = new Set([404, 410]);

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
    const gone = await ctx.send(deleter.operation, del, );
    if (gone.response.status < 200 || gone.response.status >= 300) return null;
    const findings: Finding[] = [];
    const expectGone = async (target: Operation, c: Case) => {
      const ex = await ctx.send(target, c, );
      const status = ex.response.status;
      if (!GONE.has(status) && status !== 429) {
        findings.push({ message: `${target.id} answered ${status} after ${deleter.operation.id} deleted the resource`, expected: "404", got: String(status), request: ex.request, status });
      }
    };
    await expectGone(deleter.operation, del);
    for (const target of res.readers) {
      const c = linkedCase(ctx, target, created.env);
      if (c) await expectGone(target.operation, c);
    }
    const addressed = new Set([deleter.operation.id, ...res.readers.map((r) => r.operation.id)]);
    for (const other of operationsUnder(ctx, deleter.operation)) {
      if (addressed.has(other.id)) continue;
      const c = caseAddressing(ctx, other, deleter.operation, del);
      if (c) await expectGone(other, c);
    }
    const id = createdId(res, created.env);
    if (res.lister && id !== undefined && !isPaginated(res.lister) && !res.lister.parameters.some((p) => p.in === "path")) {
      const sampled = ctx.sampleCase(res.lister, 29);
      if (sampled) {
        const ex = await ctx.send(res.lister, requiredQueryOnly(res.lister, sampled));
        if (ex.response.status === 200 && listMentions(ex.response.json, id)) {
          findings.push({ title: "Deleted resource still listed", message: `${res.lister.id} still lists ${JSON.stringify(id)} after ${deleter.operation.id}`, expected: "no such item", got: ex.response.text.slice(0, 200), request: ex.request, status: 200 });
        }
      }
    }
    return findings;
  },
};

/** Documented operations on the deleter's path or below it. */
function operationsUnder(ctx: CheckContext, deleter: Operation): Operation[] {
  return ctx.contract.operations.filter(
    (o) => (o.path === deleter.path || o.path.startsWith(`${deleter.path}/`)),
  );
}

/** A valid case for `op` whose path parameters shared with the deleter name the deleted resource. */
function caseAddressing(ctx: CheckContext, op: Operation, deleter: Operation, del: Case): Case | undefined {
  const c = ctx.sampleCase(op, 31);
  if (!c) return undefined;
  const shared = deleter.parameters.filter((p) => p.in === "path").map((p) => p.name);
  return { ...c, pathParams: { ...c.pathParams, ...Object.fromEntries(shared.map((n) => [n, del.pathParams[n]])) } };
}
