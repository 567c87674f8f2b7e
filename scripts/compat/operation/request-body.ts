// An operation's request body: added, removed, required or not, and its content.
import type { Doc } from "../load.ts";
import { deref } from "../resolve.ts";
import type { Direction } from "../rules.ts";
import type { CtxOf, Emit } from "./context.ts";
import { compareContent } from "./media-types.ts";
import type { Operation } from "./operations.ts";

export function compareRequestBody(
  o1: Operation,
  o2: Operation,
  base: Doc,
  rev: Doc,
  requestDir: Direction,
  ctx: CtxOf,
  emit: Emit,
): void {
  const a = o1.op;
  const b = o2.op;
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
}
