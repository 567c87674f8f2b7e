// OpenAPI runtime expressions (`$request.body#/callbackUrl`, `$request.query.url`,
// `$request.header.X-Hook`, `$request.path.id`) read backwards: where in a request a value must go
// for the expression to find it. Callbacks (and configured webhook subscriptions) use it to put the
// suite's receiver URL where the implementation will read it.
import { unescapePointer } from "./dereference.ts";
import type { Case } from "./types.ts";

export type RequestLocation = { in: "body"; pointer: string[] } | { in: "query" | "header" | "path"; name: string };

/** Where `$request...` reads from, or undefined for any other expression. */
export function requestLocation(expression: string): RequestLocation | undefined {
  const e = expression.trim().replace(/^\{(.*)\}$/, "$1");
  const body = /^\$request\.body(?:#(.*))?$/.exec(e);
  if (body) return { in: "body", pointer: (body[1] ?? "").split("/").slice(1).map(unescapePointer) };
  const named = /^\$request\.(query|header|path)\.(.+)$/.exec(e);
  return named ? { in: named[1] as "query" | "header" | "path", name: named[2] } : undefined;
}

/**
 * A callback URL template whose address comes from the request (`{$request.body#/url}` or
 * `{$request.query.cb}/events`): where it comes from and what follows it. Undefined when the
 * template starts with a literal address, which the suite cannot receive at.
 */
export function callbackTarget(template: string): { location: RequestLocation; suffix: string } | undefined {
  const m = /^\{(\$request\.[^}]+)\}(.*)$/.exec(template.trim());
  const location = m ? requestLocation(m[1]) : undefined;
  return m && location ? { location, suffix: m[2] } : undefined;
}

/** The case with `value` where the location reads it (objects made along a body pointer). */
export function placeInCase(c: Case, at: RequestLocation, value: string): Case {
  if (at.in !== "body") {
    const bag = at.in === "query" ? "query" : at.in === "path" ? "pathParams" : "headers";
    return { ...c, [bag]: { ...c[bag], [at.name]: value } };
  }
  const pointer = at.pointer;
  if (!pointer.length) return { ...c, body: value, hasBody: true };
  const set = (node: unknown, i: number): unknown => {
    const key = pointer[i];
    const base: any = Array.isArray(node) ? [...node] : node && typeof node === "object" ? { ...node } : /^\d+$/.test(key) ? [] : {};
    base[Array.isArray(base) ? Number(key) : key] = i === pointer.length - 1 ? value : set(base[key], i + 1);
    return base;
  };
  return { ...c, body: set(c.body, 0), hasBody: true };
}
