// Turns any OpenAPI 3.0 or 3.1 document into the flat list of operations the engine works on.
// Generators and validators never meet a `$ref`: references are resolved here, to shared objects.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { parse as parseYaml } from "yaml";
import type { Contract, HeaderSpec, LinkSpec, MediaSpec, Operation, Parameter, ResponseSpec } from "./types.ts";
import { SchemaBuilder } from "./schema-normalize.ts";
import { escapePointer, RefResolver } from "./dereference.ts";
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
    const bytes = location.startsWith("http://") || location.startsWith("https://")
      ? Buffer.from(await (await fetch(location)).arrayBuffer())
      : await readFile(location);
    // Large public contracts are kept gzipped (conformance/fixtures/contracts/).
    text = (location.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (error) {
    throw new ContractError(`cannot read contract ${location}: ${(error as Error).message}`);
  }
  let doc: any;
  try {
    doc = location.replace(/\.gz$/, "").endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ContractError(`contract ${location} is not valid JSON/YAML: ${(error as Error).message}`);
  }
  return buildContract(doc, scopeExtension);
}

/**
 * The document is read, never changed: schemas are built beside it (schema-normalize.ts), shared
 * wherever a reference is, and only those the operations reach.
 */
export function buildContract(doc: any, scopeExtension = "x-platform-scope"): Contract {
  const version = String(doc?.openapi ?? "");
  if (!/^3\.[01]\./.test(version)) throw new ContractError(`unsupported document: openapi "${version}" (need 3.0.x or 3.1.x)`);
  const is30 = version.startsWith("3.0");
  const resolver = new RefResolver(doc);
  const schemas = new SchemaBuilder(resolver);
  const operations: Operation[] = [];
  for (const [path, item0] of Object.entries<any>(doc.paths ?? {})) {
    const { node: item, pointer } = resolver.follow(item0, `#/paths/${escapePointer(path)}`);
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      operations.push(buildOperation({ doc, resolver, schemas }, path, method, item, op, `${pointer}/${method}`, scopeExtension));
    }
  }
  const ids = new Set<string>();
  for (const op of operations) {
    if (ids.has(op.id)) throw new ContractError(`duplicate operationId ${op.id}`);
    ids.add(op.id);
  }
  const rootScopes: string[] = (doc[`${scopeExtension}s`] ?? []).map((s: any) => (typeof s === "string" ? s : s.name));
  const scopes = [...new Set([...rootScopes, ...operations.flatMap((o) => (o.scope ? [o.scope] : []))])];
  const securitySchemes = Object.fromEntries(
    Object.entries<any>(doc.components?.securitySchemes ?? {}).map(([name, s]) => [name, resolver.follow(s, `#/components/securitySchemes/${escapePointer(name)}`).node]),
  );
  return {
    version: is30 ? "3.0" : "3.1",
    title: doc.info?.title ?? "API",
    operations,
    securitySchemes,
    scopes,
    raw: doc.webhooks ? { ...doc, webhooks: buildWebhooks({ doc, resolver, schemas }) } : doc,
    warnings: resolver.warnings,
  };
}

interface Build {
  doc: any;
  resolver: RefResolver;
  schemas: SchemaBuilder;
}

/** Webhook payload schemas, the one part of the raw document checks and fixtures read. */
function buildWebhooks({ doc, resolver, schemas }: Build): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [event, item0] of Object.entries<any>(doc.webhooks)) {
    const { node: item, pointer } = resolver.follow(item0, `#/webhooks/${escapePointer(event)}`);
    const { node: body, pointer: at } = resolver.follow(item?.post?.requestBody, `${pointer}/post/requestBody`);
    const content = Object.fromEntries(
      Object.entries<any>(body?.content ?? {}).map(([m, media]) => [m, { ...media, schema: media?.schema === undefined ? undefined : schemas.build(media.schema, `${at}/content/${escapePointer(m)}/schema`) }]),
    );
    out[event] = { ...item, post: { ...item?.post, requestBody: body && { ...body, content } } };
  }
  return out;
}

function buildOperation(b: Build, path: string, method: string, item: any, op: any, at: string, scopeExt: string): Operation {
  const { doc, resolver, schemas } = b;
  const schema = (s: unknown, pointer: string) => (s === undefined ? undefined : schemas.build(s, pointer));
  // Operation-level parameters override path-level ones with the same name and location.
  const byKey = new Map<string, { p: any; pointer: string }>();
  const itemAt = at.slice(0, at.lastIndexOf("/"));
  for (const [list, base] of [[item.parameters, `${itemAt}/parameters`], [op.parameters, `${at}/parameters`]] as const) {
    (list ?? []).forEach((p0: any, i: number) => {
      const { node: p, pointer } = resolver.follow(p0, `${base}/${i}`);
      if (p) byKey.set(`${p.in}:${p.name}`, { p, pointer });
    });
  }
  const parameters: Parameter[] = [...byKey.values()]
    .filter(({ p }) => p.in === "path" || p.in === "query" || p.in === "header")
    .map(({ p, pointer }) => ({
      name: p.name,
      in: p.in,
      required: p.in === "path" ? true : Boolean(p.required),
      schema: (p.schema !== undefined
        ? schema(p.schema, `${pointer}/schema`)
        : schema(p.content?.["application/json"]?.schema, `${pointer}/content/application~1json/schema`)) ?? {},
      examples: collectExamples(resolver, p, pointer),
      ...(p.style !== undefined ? { style: String(p.style) } : {}),
      ...(p.explode !== undefined ? { explode: Boolean(p.explode) } : {}),
    }));
  let body: Operation["body"];
  const { node: requestBody, pointer: bodyAt } = resolver.follow(op.requestBody, `${at}/requestBody`);
  const content = requestBody?.content;
  if (content) {
    // JSON where offered, else a form, multipart or text type the suite can encode (media-types.ts).
    const mediaType = preferredMediaType(Object.keys(content)) ?? "application/json";
    const mediaAt = `${bodyAt}/content/${escapePointer(mediaType)}`;
    body = {
      encoding: content[mediaType]?.encoding,
      required: Boolean(requestBody.required),
      mediaType,
      schema: schema(content[mediaType]?.schema, `${mediaAt}/schema`) ?? {},
      examples: collectExamples(resolver, content[mediaType], mediaAt),
    };
  }
  const responses: ResponseSpec[] = Object.entries<any>(op.responses ?? {}).map(([status, r0]) => {
    const { node: r, pointer: rAt } = resolver.follow(r0, `${at}/responses/${escapePointer(status)}`);
    const headers: Record<string, HeaderSpec> = {};
    for (const [name, h0] of Object.entries<any>(r?.headers ?? {})) {
      const { node: h, pointer: hAt } = resolver.follow(h0, `${rAt}/headers/${escapePointer(name)}`);
      headers[name.toLowerCase()] = { required: Boolean(h?.required), schema: schema(h?.schema, `${hAt}/schema`) };
    }
    const mediaTypes: Record<string, MediaSpec> = {};
    for (const [m, media] of Object.entries<any>(r?.content ?? {})) {
      const mAt = `${rAt}/content/${escapePointer(m)}`;
      mediaTypes[m] = { schema: schema(media?.schema, `${mAt}/schema`), examples: collectExamples(resolver, media, mAt) };
    }
    const links: LinkSpec[] = Object.entries<any>(r?.links ?? {}).map(([name, l0]) => {
      const l = resolver.follow(l0, `${rAt}/links/${escapePointer(name)}`).node ?? {};
      return { name, operationId: l.operationId ?? resolveOperationRef(doc, l.operationRef), parameters: l.parameters ?? {} };
    });
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

/** Example values, exactly as written: data, so a `$ref` key inside one is kept as a key. */
function collectExamples(resolver: RefResolver, holder: any, at: string): unknown[] {
  if (!holder) return [];
  const out: unknown[] = [];
  if (holder.example !== undefined) out.push(holder.example);
  for (const [name, e0] of Object.entries<any>(holder.examples ?? {})) {
    const e = resolver.follow(e0, `${at}/examples/${escapePointer(name)}`).node;
    if (e && typeof e === "object" && "value" in e) out.push(e.value);
  }
  return out;
}

function resolveOperationRef(doc: any, ref: string | undefined): string {
  // `#/paths/~1v1~1things/get` -> the operationId found there
  const m = /^#\/paths\/([^/]+)\/(\w+)$/.exec(ref ?? "");
  if (!m) return "";
  const path = m[1].replace(/~1/g, "/").replace(/~0/g, "~");
  return doc.paths?.[path]?.[m[2]]?.operationId ?? `${m[2].toUpperCase()} ${path}`;
}
