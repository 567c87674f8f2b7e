// An operation's responses by status: added or removed (success or not), and each one's headers
// and content.
import type { Doc } from "../load.ts";
import { deref } from "../resolve.ts";
import type { Direction } from "../rules.ts";
import { diffSchema } from "../schema-diff.ts";
import type { CtxOf, Emit } from "./context.ts";
import { compareContent } from "./media-types.ts";
import type { Operation } from "./operations.ts";

export function compareResponses(
  o1: Operation,
  o2: Operation,
  base: Doc,
  rev: Doc,
  responseDir: Direction,
  ctx: CtxOf,
  emit: Emit,
): void {
  const a = o1.op;
  const b = o2.op;
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

function compareHeaders(
  h1: Doc,
  h2: Doc,
  ptr: (string | number)[],
  dir: Direction,
  ctx: CtxOf,
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
