// Which operations create, read, list and delete the same resource. OpenAPI links are the
// authority; where the contract has none, REST path shapes fill in (POST /x creates what
// GET/DELETE /x/{id} address). The stateful checks walk this graph.
import type { Contract, LinkSpec, Operation } from "./types.ts";

export interface Target {
  operation: Operation;
  /** target parameter name -> runtime expression */
  parameters: Record<string, string>;
}

export interface Resource {
  creator: Operation;
  readers: Target[];
  deleters: Target[];
  lister?: Operation;
}

export interface ResourceGraph {
  resources: Resource[];
  /** a creator whose resources fill this path parameter of this operation */
  parentFor(op: Operation, param: string): Resource | undefined;
}

const isItemPath = (base: string, path: string) => path.startsWith(`${base}/{`) && /^\{[^}/]+\}/.test(path.slice(base.length + 1));

export function buildResourceGraph(contract: Contract): ResourceGraph {
  const byId = new Map(contract.operations.map((o) => [o.id, o]));
  const resources: Resource[] = [];
  for (const op of contract.operations) {
    if (op.method !== "POST") continue;
    const links: LinkSpec[] = op.responses.filter((r) => r.status.startsWith("2")).flatMap((r) => r.links);
    const targets: Target[] = links
      .filter((l) => byId.has(l.operationId))
      .map((l) => ({ operation: byId.get(l.operationId)!, parameters: l.parameters }))
      // Links that only pass the creator's own inputs along do not address the new resource.
      .filter((t) => Object.values(t.parameters).some((e) => String(e).startsWith("$response.body")));
    const fromResponse = targets.length ? undefined : idPointer(op);
    if (fromResponse) {
      for (const other of contract.operations) {
        if (!isItemPath(op.path, other.path)) continue;
        const param = /^\{([^}]+)\}/.exec(other.path.slice(op.path.length + 1))![1];
        const parameters: Record<string, string> = { [param]: `$response.body#${fromResponse}` };
        // Parent parameters (e.g. /groups/{id}/members) keep the value the creator was called with.
        for (const p of op.parameters.filter((p) => p.in === "path")) parameters[p.name] = `$request.path.${p.name}`;
        targets.push({ operation: other, parameters });
      }
    }
    if (!targets.length) continue;
    const itemPathDepth = (t: Target) => t.operation.path.split("/").length;
    const minDepth = Math.min(...targets.map(itemPathDepth));
    resources.push({
      creator: op,
      readers: targets.filter((t) => t.operation.method === "GET"),
      // Deleting a sub-resource (/x/{id}/members/{m}) is not deleting the resource itself.
      deleters: targets.filter((t) => t.operation.method === "DELETE" && itemPathDepth(t) === minDepth),
      // `/files#search` (a fragment path) shares the URL but is not the plain list.
      lister: contract.operations.find((o) => o.method === "GET" && o.path === op.path && !o.pathKey) ?? contract.operations.find((o) => o.method === "GET" && o.path === op.path),
    });
  }
  return {
    resources,
    parentFor(op, param) {
      // A link says it outright (sendMail's answer fills cancelMessage's {id}); else the path shape.
      const linked = resources.find(
        (r) => r.creator.id !== op.id && [...r.readers, ...r.deleters].some((t) => t.operation.id === op.id && String(t.parameters[param] ?? "").startsWith("$response.body")),
      );
      if (linked) return linked;
      return resources.find((r) => {
        const marker = `{${param}}`;
        const cut = op.path.indexOf(marker);
        if (cut < 0) return false;
        const prefix = op.path.slice(0, cut - 1);
        return r.creator.path === prefix && r.creator.id !== op.id;
      });
    },
  };
}

/** Where the new resource's id sits in the creator's response: `/id`, or `/<wrapper>/id`. */
export function idPointer(op: Operation): string | undefined {
  const ok = op.responses.find((r) => r.status.startsWith("2"));
  const schema: any = ok && Object.values(ok.content)[0]?.schema;
  const props = schema?.properties ?? {};
  if (props.id) return "/id";
  for (const [name, p] of Object.entries<any>(props)) if (p?.properties?.id) return `/${name}/id`;
  return undefined;
}

export interface LinkEnv {
  requestPath: Record<string, unknown>;
  requestQuery: Record<string, unknown>;
  requestBody: unknown;
  responseBody: unknown;
  responseHeaders: Record<string, string>;
}

/** Evaluates an OpenAPI runtime expression against the creating exchange. */
export function evaluateExpression(expr: string, env: LinkEnv): unknown {
  if (typeof expr !== "string" || !expr.startsWith("$")) return expr;
  const pointer = (root: unknown, ptr: string) =>
    ptr.split("/").slice(1).reduce<any>((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], root);
  let m: RegExpExecArray | null;
  if ((m = /^\$response\.body#(.*)$/.exec(expr))) return pointer(env.responseBody, m[1]);
  if ((m = /^\$request\.body#(.*)$/.exec(expr))) return pointer(env.requestBody, m[1]);
  if ((m = /^\$request\.path\.(.+)$/.exec(expr))) return env.requestPath[m[1]];
  if ((m = /^\$request\.query\.(.+)$/.exec(expr))) return env.requestQuery[m[1]];
  if ((m = /^\$response\.header\.(.+)$/.exec(expr))) return env.responseHeaders[m[1].toLowerCase()];
  return undefined;
}
