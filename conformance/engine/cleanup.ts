// What the suite creates, it deletes again, so its own traffic does not exhaust the server's
// per-project caps (20 webhooks, ...) before the later phases run, and so deleters reach their
// success path too. Creations outside the stateful phase are deleted at once; the stateful checks
// need theirs until the phase ends, so those are deleted then, newest first (children before parents).
import type { CheckContext } from "./check-api.ts";
import { evaluateExpression, type LinkEnv, type Resource } from "./resources.ts";
import { isSoftDelete, linkedCase } from "./stateful.ts";
import type { Exchange } from "./types.ts";

interface Pending {
  resource: Resource;
  env: LinkEnv;
}

export class Cleanup {
  private readonly later = new Map<string, Pending[]>();

  /** The resource an exchange created, when its creator has a hard deleter. */
  created(ctx: CheckContext, ex: Exchange): Pending | undefined {
    if (ex.response.status < 200 || ex.response.status >= 300 || ex.keyRole !== "default") return undefined;
    const resource = ctx.resources.resources.find((r) => r.creator.id === ex.operation.id && r.deleters.some((d) => !isSoftDelete(d.operation, ctx.config.operations[d.operation.id]?.softDelete)));
    if (!resource) return undefined;
    const env: LinkEnv = { requestPath: ex.case.pathParams, requestQuery: ex.case.query, requestBody: ex.case.body, responseBody: ex.response.json, responseHeaders: ex.response.headers };
    // Only when the new resource can be addressed (its id is in the answer).
    const target = resource.deleters.find((d) => !isSoftDelete(d.operation, ctx.config.operations[d.operation.id]?.softDelete))!;
    if (Object.values(target.parameters).some((e) => evaluateExpression(e, env) === undefined)) return undefined;
    return { resource, env };
  }

  /** Keeps `p` until `flush(owner)`: the stateful phase, or the operation whose cases use it as a parent. */
  defer(p: Pending, owner: string): void {
    if (!this.later.has(owner)) this.later.set(owner, []);
    this.later.get(owner)!.push(p);
  }

  async delete(ctx: CheckContext, p: Pending): Promise<void> {
    for (const deleter of p.resource.deleters) {
      if (isSoftDelete(deleter.operation, ctx.config.operations[deleter.operation.id]?.softDelete)) continue;
      const c = linkedCase(ctx, deleter, p.env);
      if (!c) continue;
      await ctx.send(deleter.operation, c, { cleanup: true });
      return;
    }
  }

  async flush(ctx: CheckContext, owner: string): Promise<void> {
    const list = this.later.get(owner) ?? [];
    this.later.delete(owner);
    while (list.length) await this.delete(ctx, list.pop()!);
  }
}
