// Reads the operations of an OpenAPI 3.x document into the table the generated routes are built from.
import { normalizeSchema } from "./schema-object.ts";

export const httpMethods = ["get", "put", "post", "delete", "patch"] as const;

type Obj = Record<string, unknown>;

export interface OperationInfo {
  operationId: string;
  tag: string;
  method: (typeof httpMethods)[number];
  path: string;
  url: string;
  scope: string | null;
  schema: { params?: unknown; querystring?: unknown; body?: unknown; response: Record<string, unknown> };
}

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}

/** Follows a local `#/...` reference within the document (parameters, request bodies, responses). */
function deref<T>(doc: Obj, value: unknown): T {
  let current = value as Obj;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 20; hops++) {
    const pointer = (current.$ref as string).replace(/^#\//, "").split("/");
    current = pointer.reduce<Obj>((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")] as Obj, doc);
  }
  return current as T;
}

export function collectOperations(doc: Obj): OperationInfo[] {
  const openapi30 = String(doc.openapi ?? "").startsWith("3.0");
  const paths = (doc.paths ?? {}) as Record<string, Obj>;
  const out: OperationInfo[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref<Obj>(doc, rawItem);
    for (const method of httpMethods) {
      const op = item[method] as Obj | undefined;
      if (!op) continue;
      const parameters = mergeParameters(doc, item.parameters, op.parameters);
      out.push({
        operationId: (op.operationId as string | undefined) ?? fallbackOperationId(method, path),
        tag: ((op.tags as string[] | undefined) ?? ["default"])[0],
        method,
        path,
        url: path.replace(/\{([^}]+)\}/g, ":$1"),
        scope: (op["x-platform-scope"] as string | undefined) ?? null,
        schema: {
          params: parameterSchema(parameters, "path", openapi30),
          querystring: parameterSchema(parameters, "query", openapi30),
          body: bodySchema(doc, op.requestBody, openapi30),
          response: responseSchemas(doc, (op.responses ?? {}) as Obj, openapi30),
        },
      });
    }
  }
  return out;
}

function mergeParameters(doc: Obj, shared: unknown, own: unknown): ParameterObject[] {
  const byKey = new Map<string, ParameterObject>();
  for (const list of [shared, own]) {
    for (const raw of (list as unknown[] | undefined) ?? []) {
      const p = deref<ParameterObject>(doc, raw);
      byKey.set(`${p.in}:${p.name}`, p);
    }
  }
  return [...byKey.values()];
}

function parameterSchema(parameters: ParameterObject[], location: string, openapi30: boolean): unknown {
  const selected = parameters.filter((p) => p.in === location);
  if (selected.length === 0) return undefined;
  const properties: Obj = {};
  for (const p of selected) properties[p.name] = normalizeSchema(p.schema ?? { type: "string" }, openapi30);
  const required = selected.filter((p) => p.required || location === "path").map((p) => p.name);
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function bodySchema(doc: Obj, raw: unknown, openapi30: boolean): unknown {
  if (!raw) return undefined;
  const body = deref<Obj>(doc, raw);
  const media = (body.content as Obj | undefined)?.["application/json"] as Obj | undefined;
  if (!media?.schema) return undefined;
  const schema = normalizeSchema(media.schema, openapi30) as Obj;
  // Request bodies are optional unless the contract says required (OpenAPI's default).
  return body.required === true ? schema : { ...schema, "x-optional-body": true };
}

function responseSchemas(doc: Obj, responses: Obj, openapi30: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, raw] of Object.entries(responses)) {
    const response = deref<Obj>(doc, raw);
    const media = (response.content as Obj | undefined)?.["application/json"] as Obj | undefined;
    if (media?.schema) out[status] = normalizeSchema(media.schema, openapi30);
  }
  return out;
}

function fallbackOperationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1));
  return method + words.join("");
}
