// The compatibility gate's engine: two resolved OpenAPI documents compared operation by
// operation (path-level parameters merged into each operation, path templates matched whatever
// their parameter names), each difference named by its rule in rules.ts.
import type { Doc } from "./load.ts";
import { fingerprint, normalize } from "./resolve.ts";
import { ruleOf, type Direction, type Level } from "./rules.ts";
import { diffSchema, type SchemaCtx } from "./schema-diff.ts";
import { compareEffectiveSecurity } from "./security.ts";
import type { Emit } from "./operation/context.ts";
import { compareLifecycle, removedOperation } from "./operation/lifecycle.ts";
import { compareParameters } from "./operation/parameters.ts";
import { callbackOperations, operations, type Operation } from "./operation/operations.ts";
import { compareRequestBody } from "./operation/request-body.ts";
import { compareResponses } from "./operation/responses.ts";
import { compareSecurityLists } from "./operation/security-lists.ts";
import { unknownKeys } from "./operation/unknown-keys.ts";

export interface Finding {
  id: string;
  level: Level;
  /** `METHOD /path`, `webhook <name>`, or `document`. */
  operation: string;
  message: string;
  /** RFC 6901 pointer into the revision (into the base for something removed). */
  pointer: string;
  says: string;
}

const escape = (s: string | number) => String(s).replace(/~/g, "~0").replace(/\//g, "~1");
const toPointer = (p: (string | number)[]) => "/" + p.map(escape).join("/");

export function compareDocuments(base: Doc, rev: Doc, now: Date = new Date()): Finding[] {
  const findings: Finding[] = [];
  const seenFinding = new Set<string>();
  const emitFor =
    (operation: string, downgrade: boolean) =>
    (id: string, message: string, ptr: (string | number)[]) => {
      const rule = ruleOf(id);
      // Draft and alpha operations promise nothing (oasdiff's stability levels): shown, not failing.
      const level: Level =
        downgrade && (rule.level === "ERR" || rule.level === "WARN") ? "INFO" : rule.level;
      const f: Finding = {
        id,
        level,
        operation,
        message,
        pointer: toPointer(ptr),
        says: rule.says,
      };
      const k = `${id} ${operation} ${f.pointer} ${message}`;
      if (seenFinding.has(k)) return;
      seenFinding.add(k);
      findings.push(f);
    };
  const docEmit = emitFor("document", false);
  const ops1 = operations(base);
  const ops2 = operations(rev);
  const paths2 = new Set([...ops2.values()].map((o) => o.pathKey));

  for (const [key, o1] of ops1) {
    const o2 = ops2.get(key);
    const unstable = ["draft", "alpha"].includes(o1.op["x-stability-level"]);
    const emit = emitFor(o1.label, unstable);
    if (!o2) {
      if (o1.kind === "webhook") emit("webhook-removed", "webhook removed", o1.ptr);
      else removedOperation(o1, !paths2.has(o1.pathKey), emit, now);
      continue;
    }
    compareOperation(o1, o2, base, rev, emitFor(o2.label, unstable), now);
  }
  for (const [key, o2] of ops2)
    if (!ops1.has(key))
      emitFor(o2.label, false)(
        o2.kind === "webhook" ? "webhook-added" : "endpoint-added",
        "new",
        o2.ptr,
      );
  compareSecurityLists(base.security, rev.security, "api-global", docEmit, ["security"]);
  const s1 = base.components?.securitySchemes ?? {};
  const s2 = rev.components?.securitySchemes ?? {};
  for (const k of new Set([...Object.keys(s1), ...Object.keys(s2)])) {
    const at = ["components", "securitySchemes", k];
    if (!(k in s1)) docEmit("api-security-component-added", `security scheme ${k} added`, at);
    else if (!(k in s2))
      docEmit("api-security-component-removed", `security scheme ${k} removed`, at);
    else if (fingerprint(s1[k]) !== fingerprint(s2[k]))
      docEmit("api-security-component-changed", `security scheme ${k} changed`, at);
  }
  for (const k of Object.keys(base.components?.schemas ?? {}))
    if (!(k in (rev.components?.schemas ?? {})))
      docEmit("api-schema-removed", `component schema ${k} removed`, ["components", "schemas", k]);
  return findings;
}

// Keys compared (or deliberately not: documentation, servers) in an operation; any other key
// that differs (a misspelt key, ...) is reported as unclassified.
const operationKeys = new Set([
  "callbacks",
  "tags",
  "summary",
  "description",
  "externalDocs",
  "operationId",
  "parameters",
  "requestBody",
  "responses",
  "deprecated",
  "security",
  "servers",
]);

function compareOperation(
  o1: Operation,
  o2: Operation,
  base: Doc,
  rev: Doc,
  emit: Emit,
  now: Date,
): void {
  const a = o1.op;
  const b = o2.op;
  // A webhook is sent by the platform: its body is judged as a response, the receiver's answer as a request.
  const requestDir: Direction = o2.kind === "webhook" ? "response" : "request";
  const responseDir: Direction = o2.kind === "webhook" ? "request" : "response";
  const seen = new Map<object, Set<object>>();
  const ctx = (dir: Direction, where: SchemaCtx["where"], ptr: (string | number)[]): SchemaCtx => ({
    dir,
    where,
    ptr,
    base,
    rev,
    emit,
    seen,
    depth: 0,
    diff: diffSchema,
  });

  compareLifecycle(a, b, o2.ptr, emit);
  if (a.operationId !== b.operationId)
    emit(
      "api-operation-id-changed",
      `operationId ${a.operationId ?? "none"} -> ${b.operationId ?? "none"}`,
      [...o2.ptr, "operationId"],
    );
  const t1 = new Set<string>(a.tags ?? []);
  const t2 = new Set<string>(b.tags ?? []);
  for (const t of t2) if (!t1.has(t)) emit("api-tag-added", `tag ${t} added`, [...o2.ptr, "tags"]);
  for (const t of t1)
    if (!t2.has(t)) emit("api-tag-removed", `tag ${t} removed`, [...o2.ptr, "tags"]);
  compareSecurityLists(a.security, b.security, "api", emit, [...o2.ptr, "security"]);
  compareEffectiveSecurity(base, rev, a, b, o2.kind === "webhook", o2.ptr, emit);
  const sc1 = a["x-platform-scope"];
  const sc2 = b["x-platform-scope"];
  if (fingerprint(sc1) !== fingerprint(sc2))
    emit(
      sc1 === undefined
        ? "platform-scope-added"
        : sc2 === undefined
          ? "platform-scope-removed"
          : "platform-scope-changed",
      `x-platform-scope ${sc1 ?? "none"} -> ${sc2 ?? "none"}`,
      [...o2.ptr, "x-platform-scope"],
    );

  unknownKeys(a, b, operationKeys, o2.ptr, emit);
  // Callbacks are requests the server sends: judged as webhooks are (their body as a response).
  const cb1 = a.callbacks ?? {};
  const cb2 = b.callbacks ?? {};
  for (const name of new Set([...Object.keys(cb1), ...Object.keys(cb2)])) {
    const at = [...o2.ptr, "callbacks", name];
    const ops1 =
      name in cb1
        ? callbackOperations(base, cb1[name], [...o1.ptr, "callbacks", name])
        : new Map<string, Operation>();
    const ops2 =
      name in cb2 ? callbackOperations(rev, cb2[name], at) : new Map<string, Operation>();
    for (const [k, c1] of ops1) {
      const c2 = ops2.get(k);
      if (!c2) emit("callback-removed", `callback ${name} ${c1.label} removed`, c1.ptr);
      else compareOperation(c1, c2, base, rev, emit, now);
    }
    for (const [k, c2] of ops2)
      if (!ops1.has(k)) emit("callback-added", `callback ${name} ${c2.label} added`, c2.ptr);
  }

  compareParameters(o1, o2, requestDir, ctx, emit, now);
  compareRequestBody(o1, o2, base, rev, requestDir, ctx, emit);
  compareResponses(o1, o2, base, rev, responseDir, ctx, emit);
}

export { normalize };
