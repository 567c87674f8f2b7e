// Turns any OpenAPI 3.0 or 3.1 document into the flat list of operations the engine works on.
// Generators and validators never meet a `$ref`: references are resolved here, to shared objects.
import type { CallbackRequest, CallbackSpec, Contract, HeaderSpec, LinkSpec, MediaSpec, Operation, Parameter, ResponseSpec } from "./types.ts";
import { SchemaBuilder, unresolvedSchema } from "./schema-normalize.ts";
import { escapePointer, RefResolver } from "./dereference.ts";
import { loadDocuments, locationUrl, parseDocument, readDocument, type DocumentSet } from "./documents.ts";
import { bodyKind, preferredMediaType } from "./media-types.ts";

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
  const root = locationUrl(location);
  let text: string;
  try {
    text = await readDocument(root);
  } catch (error) {
    throw new ContractError(`cannot read contract ${location}: ${(error as Error).message}`);
  }
  let doc: any;
  try {
    doc = parseDocument(text, root);
  } catch (error) {
    throw new ContractError(`contract ${location} is not valid JSON/YAML: ${(error as Error).message}`);
  }
  // Files and URLs its references name, read before anything is built (multi-file contracts).
  return buildContract(doc, scopeExtension, await loadDocuments(root, doc, text));
}

/**
 * The document is read, never changed: schemas are built beside it (schema-normalize.ts), shared
 * wherever a reference is, and only those the operations reach. `documents` holds the files and
 * URLs the references name (loadContract reads them); without it only local references resolve.
 */
export function buildContract(doc: any, scopeExtension = "x-platform-scope", documents?: DocumentSet): Contract {
  const version = String(doc?.openapi ?? "");
  if (!/^3\.[01]\./.test(version)) throw new ContractError(`unsupported document: openapi "${version}" (need 3.0.x or 3.1.x)`);
  // readOnly and writeOnly mean different things on the two sides of an exchange: one view each.
  // Where no schema the operations reach marks anything so, one set of shared schemas serves both
  // (found by building once: only what the operations reach is ever read).
  // The texts say it at once when the contract was read from a location (documents.ts).
  if (documents) return build(doc, scopeExtension, documents, documents.marksAccess).contract;
  const neutral = build(doc, scopeExtension, documents, false);
  return neutral.sided ? build(doc, scopeExtension, documents, true).contract : neutral.contract;
}

function build(doc: any, scopeExtension: string, documents: DocumentSet | undefined, sided: boolean): { contract: Contract; sided: boolean } {
  const is30 = String(doc.openapi).startsWith("3.0");
  const resolver = new RefResolver(doc, documents);
  const request = new SchemaBuilder(resolver, sided ? "request" : undefined);
  const b: Build = { doc, resolver, request, response: sided ? new SchemaBuilder(resolver, "response") : request };
  const operations: Operation[] = [];
  for (const [path, item0] of Object.entries<any>(doc.paths ?? {})) {
    const { node: item, pointer } = resolver.follow(item0, `#/paths/${escapePointer(path)}`);
    for (const method of METHODS) {
      if (!item?.[method]) continue;
      // Operations written as a `$ref` (DigitalOcean: `get: {$ref: resources/.../list.yml}`) are
      // not in the specification, but tools resolve them, and so does the suite.
      const { node: op, pointer: at } = resolver.follow(item[method], `${pointer}/${method}`);
      if (op) operations.push(buildOperation(b, path, method, item, pointer, op, at, scopeExtension));
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
  const contract: Contract = {
    version: is30 ? "3.0" : "3.1",
    title: doc.info?.title ?? "API",
    operations,
    securitySchemes,
    scopes,
    raw: doc.webhooks ? { ...doc, webhooks: buildWebhooks(b) } : doc,
    warnings: resolver.warnings,
  };
  return { contract, sided: request.sawAccessMarker };
}

interface Build {
  doc: any;
  resolver: RefResolver;
  /** schemas of what the client sends: readOnly properties are not required (nor sent) */
  request: SchemaBuilder;
  /** schemas of what the server answers: writeOnly properties are not required (nor expected) */
  response: SchemaBuilder;
}

/** Webhook payload schemas, the one part of the raw document checks and fixtures read. */
function buildWebhooks({ doc, resolver, request }: Build): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [event, item0] of Object.entries<any>(doc.webhooks)) {
    const { node: item, pointer } = resolver.follow(item0, `#/webhooks/${escapePointer(event)}`);
    const { node: body, pointer: at } = resolver.follow(item?.post?.requestBody, `${pointer}/post/requestBody`);
    const content = Object.fromEntries(
      Object.entries<any>(body?.content ?? {}).map(([m, media]) => [m, { ...media, schema: media?.schema === undefined ? undefined : request.build(media.schema, `${at}/content/${escapePointer(m)}/schema`) }]),
    );
    out[event] = { ...item, post: { ...item?.post, requestBody: body && { ...body, content } } };
  }
  return out;
}

/**
 * OpenAPI 3.x: header parameters with these names are ignored. Content negotiation and credentials
 * come from the content maps and the security schemes (PagerDuty declares `Accept` as any string on
 * 424 operations, DigitalOcean a `Content-Type` enum that allows YAML).
 */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

function buildOperation(b: Build, key: string, method: string, item: any, itemAt: string, op: any, at: string, scopeExt: string): Operation {
  const { doc, resolver } = b;
  const requestSchema = (s: unknown, pointer: string) => (s === undefined ? undefined : b.request.build(s, pointer));
  const responseSchema = (s: unknown, pointer: string) => (s === undefined ? undefined : b.response.build(s, pointer));
  // What the operation's requests depend on and the suite could not resolve: data checks cannot judge.
  const unresolved: string[] = [];
  // Operation-level parameters override path-level ones with the same name and location.
  const byKey = new Map<string, { p: any; pointer: string }>();
  for (const [list0, base] of [[item.parameters, `${itemAt}/parameters`], [op.parameters, `${at}/parameters`]] as const) {
    const { node: list } = resolver.follow(list0, base);
    (Array.isArray(list) ? list : []).forEach((p0: any, i: number) => {
      const { node: p, pointer, problem } = resolver.follow(p0, `${base}/${i}`);
      if (problem) unresolved.push(problem);
      if (p) byKey.set(`${p.in}:${p.name}`, { p, pointer });
    });
  }
  const parameters: Parameter[] = [...byKey.values()]
    .filter(({ p }) => p.in === "path" || p.in === "query" || p.in === "cookie" || (p.in === "header" && !IGNORED_HEADERS.has(String(p.name).toLowerCase())))
    .map(({ p, pointer }) => {
      // `content` instead of `schema`: one media type, whose schema the value follows and whose
      // text (JSON) goes on the wire (param-style.ts, decision CL10).
      const contentType = p.schema === undefined && p.content && typeof p.content === "object" ? Object.keys(p.content)[0] : undefined;
      return {
      name: p.name,
      in: p.in,
      required: p.in === "path" ? true : Boolean(p.required),
      schema: (p.schema !== undefined
        ? requestSchema(p.schema, `${pointer}/schema`)
        : contentType !== undefined ? requestSchema(p.content[contentType]?.schema, `${pointer}/content/${escapePointer(contentType)}/schema`) : undefined) ?? {},
      examples: collectExamples(resolver, contentType !== undefined ? p.content[contentType] : p, contentType !== undefined ? `${pointer}/content/${escapePointer(contentType)}` : pointer),
      ...(contentType !== undefined ? { contentType } : {}),
      ...(p.style !== undefined ? { style: String(p.style) } : {}),
      ...(p.explode !== undefined ? { explode: Boolean(p.explode) } : {}),
    };
    });
  let body: Operation["body"];
  const { node: requestBody, pointer: bodyAt, problem: bodyProblem } = resolver.follow(op.requestBody, `${at}/requestBody`);
  if (bodyProblem) unresolved.push(bodyProblem);
  const content = requestBody?.content;
  let otherBodies: Operation["otherBodies"];
  if (content) {
    const bodyFor = (mediaType: string): NonNullable<Operation["body"]> => {
      const mediaAt = `${bodyAt}/content/${escapePointer(mediaType)}`;
      return {
        encoding: content[mediaType]?.encoding,
        required: Boolean(requestBody.required),
        mediaType,
        schema: requestSchema(content[mediaType]?.schema, `${mediaAt}/schema`) ?? {},
        examples: collectExamples(resolver, content[mediaType], mediaAt),
      };
    };
    // JSON where offered, else a form, multipart or text type the suite can encode (media-types.ts);
    // every other type it can write is drawn too (issue 39 item 5: only the first was ever sent).
    const mediaType = preferredMediaType(Object.keys(content)) ?? "application/json";
    body = bodyFor(mediaType);
    const others = Object.keys(content).filter((m) => m !== mediaType && bodyKind(m));
    if (others.length) otherBodies = others.map(bodyFor);
  }
  // Maps written as a reference (`responses: {$ref: responses.yml}`) are read as Redocly reads them.
  const map = (node: any, pointer: string) => resolver.follow(node, pointer);
  const { node: responseMap, pointer: responsesAt } = map(op.responses, `${at}/responses`);
  const responses: ResponseSpec[] = Object.entries<any>(responseMap ?? {}).map(([status, r0]) => {
    const { node: r, pointer: rAt, problem } = resolver.follow(r0, `${responsesAt}/${escapePointer(status)}`);
    const headers: Record<string, HeaderSpec> = {};
    const { node: headerMap, pointer: headersAt } = map(r?.headers, `${rAt}/headers`);
    for (const [name, h0] of Object.entries<any>(headerMap ?? {})) {
      const { node: h, pointer: hAt, problem: hProblem } = resolver.follow(h0, `${headersAt}/${escapePointer(name)}`);
      headers[name.toLowerCase()] = { required: Boolean(h?.required), schema: hProblem ? unresolvedSchema(hProblem) : responseSchema(h?.schema, `${hAt}/schema`) };
    }
    const mediaTypes: Record<string, MediaSpec> = {};
    const { node: contentMap, pointer: contentAt } = map(r?.content, `${rAt}/content`);
    for (const [m, media] of Object.entries<any>(contentMap ?? {})) {
      const mAt = `${contentAt}/${escapePointer(m)}`;
      mediaTypes[m] = { schema: responseSchema(media?.schema, `${mAt}/schema`), examples: collectExamples(resolver, media, mAt) };
    }
    const links: LinkSpec[] = Object.entries<any>(r?.links ?? {}).map(([name, l0]) => {
      const l = resolver.follow(l0, `${rAt}/links/${escapePointer(name)}`).node ?? {};
      return { name, operationId: l.operationId ?? resolveOperationRef(doc, l.operationRef), parameters: l.parameters ?? {} };
    });
    return { status: String(status).toUpperCase(), headers, content: mediaTypes, links, ...(problem ? { unresolved: problem } : {}) };
  });
  const security: string[][] = (op.security ?? doc.security ?? []).map((req: any) => Object.keys(req));
  // `/files/{file_id}#get_shared_link` (Box): the fragment tells two operations on one URL apart.
  // It names the operation; it is never sent.
  const bare = key.includes("#") ? key.slice(0, key.indexOf("#")) : key;
  // `/responses/{response_id}?beta=true` (OpenAI): a query in the key is part of the address that
  // tells the operation apart; it is sent as it is, before the generated parameters, never
  // appended with a second `?`.
  const path = bare.includes("?") ? bare.slice(0, bare.indexOf("?")) : bare;
  const fixedQuery = bare.includes("?") ? bare.slice(bare.indexOf("?") + 1) : undefined;
  return {
    id: op.operationId ?? `${method.toUpperCase()} ${key}`,
    method: method.toUpperCase(),
    path,
    ...(path !== key ? { pathKey: key } : {}),
    ...(fixedQuery ? { fixedQuery } : {}),
    tags: op.tags ?? [],
    parameters,
    body,
    ...(otherBodies ? { otherBodies } : {}),
    ...callbacksOf(b, op, at),
    responses,
    security,
    scope: op[scopeExt],
    raw: op,
    ...(unresolved.length ? { unresolved } : {}),
  };
}

/**
 * The operation's callbacks, their bodies built as the server's side of an exchange (what the
 * implementation sends is judged like a response: writeOnly properties need not be there).
 */
function callbacksOf(b: Build, op: any, at: string): { callbacks?: CallbackSpec[] } {
  const { resolver } = b;
  const { node: map, pointer: mapAt } = resolver.follow(op.callbacks, `${at}/callbacks`);
  if (!map || typeof map !== "object") return {};
  const callbacks: CallbackSpec[] = [];
  for (const [name, c0] of Object.entries<any>(map)) {
    const { node: callback, pointer: cAt } = resolver.follow(c0, `${mapAt}/${escapePointer(name)}`);
    for (const [expression, i0] of Object.entries<any>(callback ?? {})) {
      if (expression.startsWith("x-")) continue;
      const { node: item, pointer: iAt } = resolver.follow(i0, `${cAt}/${escapePointer(expression)}`);
      const requests: CallbackRequest[] = [];
      for (const method of METHODS) {
        const { node: cop, pointer: oAt } = resolver.follow(item?.[method], `${iAt}/${method}`);
        if (!cop) continue;
        const { node: body, pointer: bAt } = resolver.follow(cop.requestBody, `${oAt}/requestBody`);
        const content: Record<string, MediaSpec> = {};
        for (const [m, media] of Object.entries<any>(body?.content ?? {})) {
          const mAt = `${bAt}/content/${escapePointer(m)}`;
          content[m] = { schema: media?.schema === undefined ? undefined : b.response.build(media.schema, `${mAt}/schema`), examples: [] };
        }
        const { node: responses } = resolver.follow(cop.responses, `${oAt}/responses`);
        requests.push({ method: method.toUpperCase(), content, bodyRequired: Boolean(body?.required), statuses: Object.keys(responses ?? {}).map((s) => s.toUpperCase()) });
      }
      if (requests.length) callbacks.push({ name, expression, requests, pointer: iAt });
    }
  }
  return callbacks.length ? { callbacks } : {};
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
