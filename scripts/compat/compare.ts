// The compatibility gate's engine: two resolved OpenAPI documents compared operation by
// operation (path-level parameters merged into each operation, path templates matched whatever
// their parameter names), each difference named by its rule in rules.ts.
import type { Doc } from "./load.ts";
import { deref, fingerprint, normalize } from "./resolve.ts";
import { ruleOf, type Direction, type Level } from "./rules.ts";
import { diffSchema, type SchemaCtx } from "./schema-diff.ts";
import { compareEffectiveSecurity } from "./security.ts";

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

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const stabilityLevels = ["draft", "alpha", "beta", "stable"];

interface Operation {
  key: string;
  label: string;
  kind: "path" | "webhook";
  pathKey: string;
  op: Doc;
  /** Parameters after merging path-level ones, keyed `in:name` (path ones by position). */
  params: Map<string, { p: Doc; ptr: (string | number)[] }>;
  ptr: (string | number)[];
}

const escape = (s: string | number) => String(s).replace(/~/g, "~0").replace(/\//g, "~1");
const toPointer = (p: (string | number)[]) => "/" + p.map(escape).join("/");

/** `/pets/{id}` and `/pets/{petId}` are the same path: parameters are matched by position. */
const templateOf = (path: string) => path.replace(/\{[^}]*\}/g, "{}");

/** The operations of a callback (requests the server sends to the client), keyed by expression and method. */
function callbackOperations(doc: Doc, raw: any, at: (string | number)[]): Map<string, Operation> {
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

function operations(doc: Doc): Map<string, Operation> {
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

function sunsetOf(op: Doc): { date?: number; invalid: boolean; raw?: unknown } {
  const raw = op["x-sunset"];
  if (raw === undefined) return { invalid: false };
  const date = Date.parse(String(raw));
  return Number.isNaN(date) ? { invalid: true, raw } : { date, invalid: false, raw };
}

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

function removedOperation(
  o: Operation,
  wholePath: boolean,
  emit: (id: string, m: string, p: (string | number)[]) => void,
  now: Date,
): void {
  const prefix = wholePath ? "api-path" : "api";
  const ptr = wholePath ? o.ptr.slice(0, 2) : o.ptr;
  if (!o.op.deprecated)
    return emit(`${prefix}-removed-without-deprecation`, "removed without deprecation", ptr);
  const sunset = sunsetOf(o.op);
  if (sunset.invalid)
    return emit(
      `${prefix}-sunset-parse`,
      `removed; x-sunset ${JSON.stringify(sunset.raw)} is not a date`,
      ptr,
    );
  if (sunset.date === undefined)
    return emit(`${prefix}-removed-with-deprecation`, "removed after deprecation", ptr);
  if (sunset.date > now.getTime())
    return emit(`${prefix}-removed-before-sunset`, `removed before its sunset ${sunset.raw}`, ptr);
  // Deprecated and past its sunset date: the removal was announced (V1), nothing to report.
}

// Keys compared (or deliberately not: documentation, servers) in an operation and a parameter;
// any other key that differs (a misspelt key, ...) is reported as unclassified.
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
const parameterKeys = new Set([
  "name",
  "in",
  "description",
  "required",
  "deprecated",
  "style",
  "explode",
  "allowReserved",
  "allowEmptyValue",
  "schema",
  "content",
  "example",
  "examples",
]);
function unknownKeys(
  a: Doc,
  b: Doc,
  known: Set<string>,
  ptr: (string | number)[],
  emit: Emit,
): void {
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (!known.has(k) && !k.startsWith("x-") && fingerprint(a[k]) !== fingerprint(b[k]))
      emit("unclassified", `${k} changed`, [...ptr, k]);
}

type Emit = (id: string, message: string, ptr: (string | number)[]) => void;

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
  });

  // Lifecycle.
  if (!!a.deprecated !== !!b.deprecated) {
    if (!b.deprecated)
      emit("endpoint-reactivated", "no longer deprecated", [...o2.ptr, "deprecated"]);
    else {
      const s = sunsetOf(b);
      if (s.invalid)
        emit("api-deprecated-sunset-parse", `x-sunset ${JSON.stringify(s.raw)} is not a date`, [
          ...o2.ptr,
          "x-sunset",
        ]);
      else
        emit(
          s.date === undefined ? "endpoint-deprecated" : "endpoint-deprecated-with-sunset",
          "deprecated",
          [...o2.ptr, "deprecated"],
        );
    }
  } else if (a.deprecated && b.deprecated) {
    const s1 = sunsetOf(a);
    const s2 = sunsetOf(b);
    if (s1.raw !== undefined && s2.raw === undefined)
      emit("sunset-deleted", "the sunset date was deleted", o2.ptr);
    else if ((s1.invalid || s2.invalid) && s1.raw !== s2.raw)
      emit("api-deprecated-sunset-parse", `x-sunset ${JSON.stringify(s2.raw)} is not a date`, [
        ...o2.ptr,
        "x-sunset",
      ]);
    else if (s1.date !== undefined && s2.date !== undefined && s2.date < s1.date)
      emit("api-sunset-date-changed-too-small", `sunset moved from ${s1.raw} to ${s2.raw}`, [
        ...o2.ptr,
        "x-sunset",
      ]);
  }
  const st1 = a["x-stability-level"];
  const st2 = b["x-stability-level"];
  // A level that is not one of the four, on either side of a change, cannot be judged.
  const invalidLevel = (v: unknown) => v !== undefined && !stabilityLevels.includes(v as string);
  if (st2 !== st1 && (invalidLevel(st1) || invalidLevel(st2)))
    emit(
      "api-invalid-stability-level",
      `x-stability-level ${JSON.stringify(st1)} -> ${JSON.stringify(st2)}`,
      [...o2.ptr, "x-stability-level"],
    );
  else if (st1 !== st2) {
    const i1 = stabilityLevels.indexOf(st1); // only a declared level can go down
    const i2 = stabilityLevels.indexOf(st2 ?? "stable");
    if (i1 >= 0 && i2 !== i1)
      emit(
        i2 < i1 ? "api-stability-decreased" : "api-stability-increased",
        `x-stability-level ${st1 ?? "stable"} -> ${st2 ?? "stable"}`,
        [...o2.ptr, "x-stability-level"],
      );
  }
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

  // Parameters.
  for (const [key, p1] of o1.params) {
    const p2 = o2.params.get(key);
    if (!p2) {
      const p = p1.p;
      if (!p.deprecated)
        emit("request-parameter-removed", `${p.in} parameter ${p.name} removed`, p1.ptr);
      else {
        const s = sunsetOf(p);
        if (s.invalid)
          emit(
            "request-parameter-sunset-parse",
            `deprecated ${p.in} parameter ${p.name} removed; x-sunset ${JSON.stringify(s.raw)} is not a date`,
            p1.ptr,
          );
        else if (s.date !== undefined && s.date > now.getTime())
          emit(
            "request-parameter-removed-before-sunset",
            `${p.in} parameter ${p.name} removed before its sunset ${s.raw}`,
            p1.ptr,
          );
        else
          emit(
            "request-parameter-removed-with-deprecation",
            `deprecated ${p.in} parameter ${p.name} removed`,
            p1.ptr,
          );
      }
      continue;
    }
    compareParameter(p1.p, p2.p, p2.ptr, requestDir, ctx, emit);
  }
  for (const [key, p2] of o2.params) {
    if (o1.params.has(key)) continue;
    const p = p2.p;
    if (p.in === "path")
      emit("new-request-path-parameter", `path parameter ${p.name} added`, p2.ptr);
    else
      emit(
        p.required ? "new-required-request-parameter" : "new-optional-request-parameter",
        `${p.in} parameter ${p.name} added`,
        p2.ptr,
      );
  }

  // Request body.
  const rb1 = deref(base, a.requestBody).node;
  const rb2 = deref(rev, b.requestBody).node;
  const rbPtr = [...o2.ptr, "requestBody"];
  if (!rb1 && rb2)
    emit(
      rb2.required ? "request-body-added-required" : "request-body-added-optional",
      "request body added",
      rbPtr,
    );
  else if (rb1 && !rb2)
    emit("request-body-removed", "request body removed", [...o1.ptr, "requestBody"]);
  else if (rb1 && rb2) {
    if (!!rb1.required !== !!rb2.required)
      emit(
        rb2.required ? "request-body-became-required" : "request-body-became-optional",
        `request body became ${rb2.required ? "required" : "optional"}`,
        rbPtr,
      );
    compareContent(
      rb1.content,
      rb2.content,
      [...rbPtr, "content"],
      requestDir,
      "request-body",
      ctx,
      emit,
    );
  }

  // Responses.
  const r1 = a.responses ?? {};
  const r2 = b.responses ?? {};
  for (const status of new Set([...Object.keys(r1), ...Object.keys(r2)])) {
    const at = [...o2.ptr, "responses", status];
    const success = /^2/.test(status);
    if (!(status in r2)) {
      emit(
        success ? "response-success-status-removed" : "response-non-success-status-removed",
        `response ${status} removed`,
        [...o1.ptr, "responses", status],
      );
      continue;
    }
    if (!(status in r1)) {
      emit(
        success ? "response-success-status-added" : "response-non-success-status-added",
        `response ${status} added`,
        at,
      );
      continue;
    }
    const x = deref(base, r1[status]).node ?? {};
    const y = deref(rev, r2[status]).node ?? {};
    compareHeaders(x.headers ?? {}, y.headers ?? {}, [...at, "headers"], responseDir, ctx, emit);
    compareContent(
      x.content,
      y.content,
      [...at, "content"],
      responseDir,
      "response-body",
      ctx,
      emit,
    );
  }
}

function compareParameter(
  p1: Doc,
  p2: Doc,
  ptr: (string | number)[],
  dir: Direction,
  ctx: (d: Direction, w: SchemaCtx["where"], p: (string | number)[]) => SchemaCtx,
  emit: Emit,
): void {
  const name = `${p2.in} parameter ${p2.name}`;
  unknownKeys(p1, p2, parameterKeys, ptr, emit);
  if (!!p1.required !== !!p2.required && p2.in !== "path")
    emit(
      p2.required ? "request-parameter-became-required" : "request-parameter-became-optional",
      `${name} became ${p2.required ? "required" : "optional"}`,
      ptr,
    );
  if (!!p1.deprecated !== !!p2.deprecated)
    emit(
      p2.deprecated ? "request-parameter-deprecated" : "request-parameter-reactivated",
      `${name} ${p2.deprecated ? "deprecated" : "reactivated"}`,
      ptr,
    );
  else if (p1.deprecated && p1["x-sunset"] !== undefined && p2["x-sunset"] === undefined)
    emit("request-parameter-sunset-deleted", `${name}: sunset deleted`, ptr);
  else if (p1.deprecated && p2.deprecated) {
    const s1 = sunsetOf(p1);
    const s2 = sunsetOf(p2);
    if ((s1.invalid || s2.invalid) && s1.raw !== s2.raw)
      emit(
        "request-parameter-sunset-parse",
        `${name}: x-sunset ${JSON.stringify(s2.raw)} is not a date`,
        ptr,
      );
    else if (s1.date !== undefined && s2.date !== undefined && s2.date < s1.date)
      emit(
        "request-parameter-sunset-date-changed-too-small",
        `${name}: sunset moved from ${s1.raw} to ${s2.raw}`,
        ptr,
      );
  }
  if (!!p1.allowEmptyValue !== !!p2.allowEmptyValue)
    emit(
      p2.allowEmptyValue
        ? "request-parameter-allow-empty-value-added"
        : "request-parameter-allow-empty-value-removed",
      `${name}: allowEmptyValue ${p2.allowEmptyValue ? "set" : "removed"}`,
      ptr,
    );
  const style = (p: Doc) => p.style ?? (p.in === "query" || p.in === "cookie" ? "form" : "simple");
  const explode = (p: Doc) => p.explode ?? style(p) === "form";
  if (
    style(p1) !== style(p2) ||
    explode(p1) !== explode(p2) ||
    !!p1.allowReserved !== !!p2.allowReserved
  )
    emit("request-parameter-serialization-changed", `${name}: serialisation changed`, ptr);
  if (p1.content || p2.content) {
    const m1 = Object.keys(p1.content ?? {});
    const m2 = Object.keys(p2.content ?? {});
    if (m1.join() !== m2.join())
      emit("request-parameter-content-changed", `${name}: media type changed`, ptr);
    const s1 = p1.content ? p1.content[m1[0]]?.schema : p1.schema;
    const s2 = p2.content ? p2.content[m2[0]]?.schema : p2.schema;
    diffSchema(
      s1,
      s2,
      ctx(dir, "parameter", [...ptr, ...(p2.content ? ["content", m2[0], "schema"] : ["schema"])]),
    );
  } else diffSchema(p1.schema, p2.schema, ctx(dir, "parameter", [...ptr, "schema"]));
}

function compareHeaders(
  h1: Doc,
  h2: Doc,
  ptr: (string | number)[],
  dir: Direction,
  ctx: (d: Direction, w: SchemaCtx["where"], p: (string | number)[]) => SchemaCtx,
  emit: Emit,
): void {
  const lower = (doc: Doc, h: Doc) =>
    new Map(
      Object.entries(h).map(([k, v]) => [k.toLowerCase(), { k, v: deref(doc, v).node ?? {} }]),
    );
  const l1 = lower(ctx("request", "header", []).base, h1);
  const l2 = lower(ctx("request", "header", []).rev, h2);
  for (const [name, { v }] of l1) {
    const x = l2.get(name);
    if (!x) {
      emit(
        (v as any)?.required
          ? "required-response-header-removed"
          : "optional-response-header-removed",
        `header ${name} removed`,
        [...ptr, name],
      );
      continue;
    }
    const y = x.v as Doc;
    const at = [...ptr, x.k];
    // A header is serialised as `simple` (explode false) unless it says otherwise.
    const ser = (h: Doc) => `${h.style ?? "simple"}/${!!h.explode}`;
    if (ser(v as Doc) !== ser(y))
      emit(
        "response-header-serialization-changed",
        `header ${name}: serialisation ${ser(v as Doc)} -> ${ser(y)}`,
        at,
      );
    if (!!(v as any).required !== !!y.required)
      emit(
        y.required ? "response-header-became-required" : "response-header-became-optional",
        `header ${name} became ${y.required ? "required" : "optional"}`,
        at,
      );
    diffSchema((v as any).schema, y.schema, ctx(dir, "header", [...at, "schema"]));
  }
  for (const [name, { k }] of l2)
    if (!l1.has(name)) emit("response-header-added", `header ${name} added`, [...ptr, k]);
}

/** `type/subtype` without parameters, and whether `to` names a subset of `from` (application/problem+json of application/json). */
const essence = (mt: string) => mt.split(";")[0].trim().toLowerCase();
function narrower(to: string, from: string): boolean {
  const [t1, s1] = essence(from).split("/");
  const [t2, s2] = essence(to).split("/");
  if (essence(from) === "*/*") return essence(to) !== "*/*";
  if (t1 !== t2 || !s1 || !s2) return false;
  return (s1 === "*" && s2 !== "*") || (s2 !== s1 && s2.endsWith(`+${s1}`));
}

function compareContent(
  c1: Doc | undefined,
  c2: Doc | undefined,
  ptr: (string | number)[],
  dir: Direction,
  kind: "request-body" | "response-body",
  ctx: (d: Direction, w: SchemaCtx["where"], p: (string | number)[]) => SchemaCtx,
  emit: Emit,
): void {
  const m1 = c1 ?? {};
  const m2 = c2 ?? {};
  const noun = kind === "request-body" ? "request-body-media-type" : "response-media-type";
  const removed = Object.keys(m1).filter((mt) => !(mt in m2));
  const added = Object.keys(m2).filter((mt) => !(mt in m1));
  const pairs: [string, string][] = Object.keys(m1)
    .filter((mt) => mt in m2)
    .map((mt) => [mt, mt]);
  // A response media type renamed to a related one (oasdiff's media type name rules): more
  // specific is fine for readers, more general is not, parameters changed is noted.
  // A request media type renamed likewise: more general accepts what clients send (INFO), more
  // specific refuses it (ERR).
  if (removed.length === 1 && added.length === 1) {
    const [from, to] = [removed[0], added[0]];
    const related = essence(from) === essence(to) || narrower(to, from) || narrower(from, to);
    const paramsChanged = essence(from) === essence(to) || from.includes(";") !== to.includes(";");
    const prefix = kind === "response-body" ? "response" : "request-body";
    if (related) {
      const rule = paramsChanged
        ? `${prefix}-media-type-name-changed`
        : narrower(to, from)
          ? `${prefix}-media-type-name-specialized`
          : `${prefix}-media-type-name-generalized`;
      emit(rule, `media type ${from} changed to ${to}`, [...ptr, to]);
      removed.length = 0;
      added.length = 0;
      pairs.push([from, to]);
    }
  }
  for (const mt of removed) emit(`${noun}-removed`, `media type ${mt} removed`, [...ptr, mt]);
  for (const mt of added) emit(`${noun}-added`, `media type ${mt} added`, [...ptr, mt]);
  for (const [x, y] of pairs) {
    const at = [...ptr, y];
    const s1 = m1[x]?.schema;
    const s2 = m2[y]?.schema;
    const schemaRule =
      kind === "request-body"
        ? "request-body-media-type-schema"
        : "response-body-media-type-schema";
    if (s1 === undefined && s2 !== undefined)
      emit(`${schemaRule}-added`, `media type ${y} now has a schema`, at);
    else if (s1 !== undefined && s2 === undefined)
      emit(`${schemaRule}-removed`, `media type ${y} no longer has a schema`, at);
    else diffSchema(s1, s2, { ...ctx(dir, "body", [...at, "schema"]), loose: !/json/i.test(y) });
  }
}

function compareSecurityLists(
  l1: any,
  l2: any,
  prefix: "api" | "api-global",
  emit: Emit,
  ptr: (string | number)[],
): void {
  if (l1 === undefined && l2 === undefined) return;
  const key = (req: Doc) =>
    Object.keys(req ?? {})
      .sort()
      .join("+");
  const m1 = new Map<string, Doc>((Array.isArray(l1) ? l1 : []).map((r: Doc) => [key(r), r]));
  const m2 = new Map<string, Doc>((Array.isArray(l2) ? l2 : []).map((r: Doc) => [key(r), r]));
  for (const [k, r] of m2) {
    const old = m1.get(k);
    if (!old) {
      emit(`${prefix}-security-added`, `security requirement ${k || "{}"} added`, ptr);
      continue;
    }
    for (const scheme of Object.keys(r)) {
      const s1 = new Set<string>(old[scheme] ?? []);
      const s2 = new Set<string>(r[scheme] ?? []);
      for (const s of s2)
        if (!s1.has(s))
          emit(`${prefix}-security-scope-added`, `scope ${s} added to ${scheme}`, ptr);
      for (const s of s1)
        if (!s2.has(s))
          emit(`${prefix}-security-scope-removed`, `scope ${s} removed from ${scheme}`, ptr);
    }
  }
  for (const k of m1.keys())
    if (!m2.has(k))
      emit(`${prefix}-security-removed`, `security requirement ${k || "{}"} removed`, ptr);
}

export { normalize };
