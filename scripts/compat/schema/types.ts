// A schema's type and format: widened, narrowed or changed, read as text where values travel as
// text (a form body, a parameter).
import { ruleOf, type Direction } from "../rules.ts";
import type { Normal, Schema } from "../resolve.ts";
import type { SchemaCtx } from "./context.ts";

/** Whether an exploded array parameter still accepts every single value the scalar one did. */
export function arrayOfOneAccepts(scalarRaw: any, itemsRaw: any, c: SchemaCtx): boolean {
  if (!itemsRaw || typeof itemsRaw !== "object") return true;
  let breaks = false;
  c.diff(scalarRaw, itemsRaw, {
    ...c,
    where: "parameter",
    seen: new Map(),
    emit: (id) => {
      if (ruleOf(id).level === "ERR") breaks = true;
    },
  });
  return !breaks;
}

const typeWidth = (t: Set<string> | undefined): Set<string> | undefined => {
  if (!t) return undefined;
  const out = new Set(t);
  if (out.has("number")) out.add("integer");
  return out;
};
const subset = (a: Set<string> | undefined, b: Set<string> | undefined) =>
  !b || (!!a && [...a].every((x) => b.has(x)));

const scalar = new Set(["string", "number", "integer", "boolean"]);
/**
 * Outside JSON (a form or XML body, a parameter) values travel as text, as oasdiff reads them: a
 * string type holds any value, so a change to string is compatible and, for a parameter, a change
 * from string to another scalar narrows it. An exploded query array also accepts one value.
 */
export function compareTypes(
  b: Normal,
  r: Normal,
  emit: (k: string, m: string) => void,
  loose: Direction | undefined,
  textParameter: "parameter" | "parameter-property" | undefined,
  arrayOfOneAccepts: boolean,
): void {
  const t1 = b.types && [...b.types].sort().join(",");
  const t2 = r.types && [...r.types].sort().join(",");
  if (t1 === t2) return;
  const message = `type changed from ${t1 ?? "any"} to ${t2 ?? "any"}`;
  // The receiver's type is string: whatever is sent still parses.
  if (loose && (loose === "request" ? t2 : t1) === "string")
    return emit("type-compatible", `${message} (sent as text)`);
  if (textParameter === "parameter" && t2 === "string")
    return emit("type-generalized", `${message} (a parameter is text)`);
  if (textParameter && t1 === "string" && r.types && [...r.types].every((t) => scalar.has(t)))
    return emit("type-specialized", message);
  if (
    textParameter &&
    t2 === "array" &&
    b.types &&
    [...b.types].every((t) => scalar.has(t)) &&
    arrayOfOneAccepts
  )
    return emit("type-generalized", `${message} (one value is an array of one)`);
  const wb = typeWidth(b.types);
  const wr = typeWidth(r.types);
  if (subset(wb, wr)) emit("type-generalized", message);
  else if (subset(wr, wb)) emit("type-specialized", message);
  else emit("type-changed", message);
}

// Widening a numeric format (int32 to int64, float to double) is fine for what a client sends.
function formatWidened(from: string, to: string, dir: Direction): boolean {
  const order = ["int32", "int64"];
  const f = ["float", "double"];
  for (const o of [order, f])
    if (o.includes(from) && o.includes(to))
      return dir === "request" ? o.indexOf(to) > o.indexOf(from) : o.indexOf(to) < o.indexOf(from);
  return false;
}

/** format added, removed, or changed (a numeric format widened in the direction of the value is not a change). */
export function compareFormat(bs: Schema, rs: Schema, dir: Direction, emit: (k: string, m: string) => void): void {
  if (bs.format !== rs.format) {
    if (bs.format === undefined) emit("format-added", `format ${rs.format} added`);
    else if (rs.format === undefined) emit("format-removed", `format ${bs.format} removed`);
    else if (!formatWidened(bs.format, rs.format, dir))
      emit("format-changed", `format changed from ${bs.format} to ${rs.format}`);
  }
}
