// An operation's parameters, paired by location and name (path parameters by position): removed
// (after deprecation and sunset or not), added, and each pair compared.
import type { Doc } from "../load.ts";
import type { Direction } from "../rules.ts";
import { diffSchema } from "../schema-diff.ts";
import type { CtxOf, Emit } from "./context.ts";
import { sunsetOf } from "./lifecycle.ts";
import type { Operation } from "./operations.ts";
import { unknownKeys } from "./unknown-keys.ts";

// Keys compared (or deliberately not: documentation) in a parameter; any other key that
// differs (a misspelt key, ...) is reported as unclassified.
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

export function compareParameters(
  o1: Operation,
  o2: Operation,
  requestDir: Direction,
  ctx: CtxOf,
  emit: Emit,
  now: Date,
): void {
  for (const [key, p1] of o1.params) {
    const p2 = o2.params.get(key);
    if (!p2) {
      const p = p1.p;
      // A webhook's or callback's parameters are sent by the platform and read by the receiver,
      // as a response's headers are: what it may stop sending is what breaks.
      if (requestDir === "response" && !p.deprecated)
        emit(
          p.required ? "required-response-header-removed" : "optional-response-header-removed",
          `${p.in} parameter ${p.name} removed`,
          p1.ptr,
        );
      else if (!p.deprecated)
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
    // Sent by the platform: a new parameter is one more thing the receiver may read.
    if (requestDir === "response")
      emit("response-header-added", `${p.in} parameter ${p.name} added`, p2.ptr);
    else if (p.in === "path")
      emit("new-request-path-parameter", `path parameter ${p.name} added`, p2.ptr);
    else
      emit(
        p.required ? "new-required-request-parameter" : "new-optional-request-parameter",
        `${p.in} parameter ${p.name} added`,
        p2.ptr,
      );
  }
}

function compareParameter(
  p1: Doc,
  p2: Doc,
  ptr: (string | number)[],
  dir: Direction,
  ctx: CtxOf,
  emit: Emit,
): void {
  const name = `${p2.in} parameter ${p2.name}`;
  unknownKeys(p1, p2, parameterKeys, ptr, emit);
  if (!!p1.required !== !!p2.required && p2.in !== "path" && dir === "response")
    emit(
      p2.required ? "response-header-became-required" : "response-header-became-optional",
      `${name} became ${p2.required ? "required" : "optional"}`,
      ptr,
    );
  else if (!!p1.required !== !!p2.required && p2.in !== "path")
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
