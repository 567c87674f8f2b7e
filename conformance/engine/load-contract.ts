// Turns any OpenAPI 3.0 or 3.1 document into the flat list of operations the engine works on.
// References are inlined once here so generators and validators never meet a `$ref`.
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { Contract, HeaderSpec, LinkSpec, MediaSpec, Operation, Parameter, ResponseSpec } from "./types.ts";
import { normalizeSchema } from "./schema-normalize.ts";
import { dereference } from "./dereference.ts";
import { preferredMediaType } from "./media-types.ts";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** Thrown for anything that makes the run meaningless; the CLI maps it to exit code 2. */
export class ContractError extends Error {
  override name = "ContractError";
}

/**
 * The server stopped answering (or never did: a wrong port). Connection failures are not a status
 * to judge: the run ends with exit 2, as Schemathesis does, instead of piling up "599" failures.
 */
export class ServerUnreachable extends ContractError {
  override name = "ServerUnreachable";
}

export async function loadContract(location: string, scopeExtension = "x-platform-scope"): Promise<Contract> {
  let text: string;
  try {
    text = location.startsWith("http://") || location.startsWith("https://")
      ? await (await fetch(location)).text()
      : await readFile(location, "utf8");
  } catch (error) {
    throw new ContractError(`cannot read contract ${location}: ${(error as Error).message}`);
  }
  let doc: any;
  try {
    doc = location.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ContractError(`contract ${location} is not valid JSON/YAML: ${(error as Error).message}`);
  }
  return buildContract(doc, scopeExtension);
}

export function buildContract(input: any, scopeExtension = "x-platform-scope"): Contract {
  const raw = structuredClone(input);
  const version = String(raw?.openapi ?? "");
  if (!/^3\.[01]\./.test(version)) throw new ContractError(`unsupported document: openapi "${version}" (need 3.0.x or 3.1.x)`);
  const is30 = version.startsWith("3.0");
  const doc = dereference(raw);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      operations.push(buildOperation(doc, path, method, item, op, is30, scopeExtension));
    }
  }
  const ids = new Set<string>();
  for (const op of operations) {
    if (ids.has(op.id)) throw new ContractError(`duplicate operationId ${op.id}`);
    ids.add(op.id);
  }
  const rootScopes: string[] = (doc[`${scopeExtension}s`] ?? []).map((s: any) => (typeof s === "string" ? s : s.name));
  const scopes = [...new Set([...rootScopes, ...operations.flatMap((o) => (o.scope ? [o.scope] : []))])];
  return {
    version: is30 ? "3.0" : "3.1",
    title: doc.info?.title ?? "API",
    operations,
    securitySchemes: doc.components?.securitySchemes ?? {},
    scopes,
    raw: doc,
  };
}

function buildOperation(doc: any, path: string, method: string, item: any, op: any, is30: boolean, scopeExt: string): Operation {
  const norm = (s: unknown) => (s === undefined ? undefined : normalizeSchema(s, is30));
  // Operation-level parameters override path-level ones with the same name and location.
  const byKey = new Map<string, any>();
  for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) byKey.set(`${p.in}:${p.name}`, p);
  const parameters: Parameter[] = [...byKey.values()]
    .filter((p) => p.in === "path" || p.in === "query" || p.in === "header")
    .map((p) => ({
      name: p.name,
      in: p.in,
      required: p.in === "path" ? true : Boolean(p.required),
      schema: norm(p.schema ?? p.content?.["application/json"]?.schema ?? {}) ?? {},
      examples: collectExamples(p),
    }));
  let body: Operation["body"];
  const content = op.requestBody?.content;
  if (content) {
    // JSON where offered, else a form, multipart or text type the suite can encode (media-types.ts).
    const mediaType = preferredMediaType(Object.keys(content)) ?? "application/json";
    body = {
      encoding: content[mediaType]?.encoding,
      required: Boolean(op.requestBody.required),
      mediaType,
      schema: norm(content[mediaType]?.schema ?? {}) ?? {},
      examples: collectExamples(content[mediaType]),
    };
  }
  const responses: ResponseSpec[] = Object.entries<any>(op.responses ?? {}).map(([status, r]) => {
    const headers: Record<string, HeaderSpec> = {};
    for (const [name, h] of Object.entries<any>(r?.headers ?? {})) {
      headers[name.toLowerCase()] = { required: Boolean(h?.required), schema: norm(h?.schema) };
    }
    const mediaTypes: Record<string, MediaSpec> = {};
    for (const [m, media] of Object.entries<any>(r?.content ?? {})) {
      mediaTypes[m] = { schema: norm(media?.schema), examples: collectExamples(media) };
    }
    const links: LinkSpec[] = Object.entries<any>(r?.links ?? {}).map(([name, l]) => ({
      name,
      operationId: l.operationId ?? resolveOperationRef(doc, l.operationRef),
      parameters: l.parameters ?? {},
    }));
    return { status: String(status).toUpperCase(), headers, content: mediaTypes, links };
  });
  const security: string[][] = (op.security ?? doc.security ?? []).map((req: any) => Object.keys(req));
  return {
    id: op.operationId ?? `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    tags: op.tags ?? [],
    parameters,
    body,
    responses,
    security,
    scope: op[scopeExt],
    raw: op,
  };
}

function collectExamples(holder: any): unknown[] {
  if (!holder) return [];
  const out: unknown[] = [];
  if (holder.example !== undefined) out.push(holder.example);
  for (const e of Object.values<any>(holder.examples ?? {})) if (e && "value" in e) out.push(e.value);
  return out;
}

function resolveOperationRef(doc: any, ref: string | undefined): string {
  // `#/paths/~1v1~1things/get` -> the operationId found there
  const m = /^#\/paths\/([^/]+)\/(\w+)$/.exec(ref ?? "");
  if (!m) return "";
  const path = m[1].replace(/~1/g, "/").replace(/~0/g, "~");
  return doc.paths?.[path]?.[m[2]]?.operationId ?? `${m[2].toUpperCase()} ${path}`;
}
