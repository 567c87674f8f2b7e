// An OpenAPI document's operations (paths, webhooks and callbacks), keyed so that the two
// documents' operations pair up: by method and path template (`/a/{id}` = `/a/{x}`), with the
// path-level parameters merged into each operation (the operation's own override them).
import type { Doc } from "../load.ts";
import { deref } from "../resolve.ts";

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface Operation {
  key: string;
  label: string;
  kind: "path" | "webhook";
  pathKey: string;
  op: Doc;
  /** Parameters after merging path-level ones, keyed `in:name` (path ones by position). */
  params: Map<string, { p: Doc; ptr: (string | number)[] }>;
  ptr: (string | number)[];
}

/** `/pets/{id}` and `/pets/{petId}` are the same path: parameters are matched by position. */
const templateOf = (path: string) => path.replace(/\{[^}]*\}/g, "{}");

/** The operations of a callback (requests the server sends to the client), keyed by expression and method. */
export function callbackOperations(doc: Doc, raw: any, at: (string | number)[]): Map<string, Operation> {
  const out = new Map<string, Operation>();
  const callback = deref(doc, raw).node;
  const ops = operations({
    ...doc,
    paths: {},
    webhooks: callback && typeof callback === "object" ? callback : {},
    "x-webhooks": {},
  });
  for (const o of ops.values()) {
    const expression = String(o.ptr[1]);
    const fix = (p: (string | number)[]) => [...at, ...p.slice(1)];
    for (const v of o.params.values()) v.ptr = fix(v.ptr);
    out.set(o.key, {
      ...o,
      label: `callback ${expression} (${String(o.ptr[2]).toUpperCase()})`,
      ptr: fix(o.ptr),
    });
  }
  return out;
}

export function operations(doc: Doc): Map<string, Operation> {
  const out = new Map<string, Operation>();
  const add = (
    kind: Operation["kind"],
    root: string | (string | number)[],
    name: string,
    rawItem: any,
  ) => {
    const item = deref(doc, rawItem).node;
    if (!item || typeof item !== "object") return;
    const pathKey = kind === "path" ? templateOf(name) : `webhook ${name}`;
    const pathNames = kind === "path" ? [...name.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]) : [];
    for (const m of methods) {
      const op = item[m];
      if (!op || typeof op !== "object") continue;
      const ptr = [...[root].flat(), name, m];
      const params = new Map<string, { p: Doc; ptr: (string | number)[] }>();
      // Path-level first, the operation's own override them (OpenAPI: same name and location).
      for (const [list, at] of [
        [item.parameters, [...[root].flat(), name, "parameters"]],
        [op.parameters, [...ptr, "parameters"]],
      ] as const) {
        let declared = 0;
        (Array.isArray(list) ? list : []).forEach((raw: any, i: number) => {
          const p = deref(doc, raw).node;
          if (!p || typeof p !== "object") return;
          // A path parameter is its position in the template; one whose name is not in the
          // template (a mistake the loader tolerates) takes its place among the declared ones.
          const named = pathNames.indexOf(p.name);
          const pos = p.in === "path" ? (named >= 0 ? named : declared) : -1;
          if (p.in === "path") declared++;
          const key =
            p.in === "path" && pos >= 0
              ? `path:#${pos}`
              : `${p.in}:${p.in === "header" ? String(p.name).toLowerCase() : p.name}`;
          params.set(key, { p, ptr: [...at, i] });
        });
      }
      const key = `${m.toUpperCase()} ${pathKey}`;
      out.set(key, {
        key,
        label:
          kind === "path" ? `${m.toUpperCase()} ${name}` : `webhook ${name} (${m.toUpperCase()})`,
        kind,
        pathKey,
        op,
        params,
        ptr,
      });
    }
  };
  for (const [name, item] of Object.entries<any>(doc.paths ?? {})) add("path", "paths", name, item);
  for (const root of ["webhooks", "x-webhooks"])
    for (const [name, item] of Object.entries<any>(doc[root] ?? {}))
      add("webhook", root, name, item);
  return out;
}
