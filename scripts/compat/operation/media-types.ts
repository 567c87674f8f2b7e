// A request or response body's content by media type: added, removed, renamed to a related type
// (more specific, more general, parameters changed), and each pair's schema.
import type { Doc } from "../load.ts";
import type { Direction } from "../rules.ts";
import { diffSchema } from "../schema-diff.ts";
import type { CtxOf, Emit } from "./context.ts";

/** `type/subtype` without parameters, and whether `to` names a subset of `from` (application/problem+json of application/json). */
const essence = (mt: string) => mt.split(";")[0].trim().toLowerCase();
function narrower(to: string, from: string): boolean {
  const [t1, s1] = essence(from).split("/");
  const [t2, s2] = essence(to).split("/");
  if (essence(from) === "*/*") return essence(to) !== "*/*";
  if (t1 !== t2 || !s1 || !s2) return false;
  return (s1 === "*" && s2 !== "*") || (s2 !== s1 && s2.endsWith(`+${s1}`));
}

export function compareContent(
  c1: Doc | undefined,
  c2: Doc | undefined,
  ptr: (string | number)[],
  dir: Direction,
  kind: "request-body" | "response-body",
  ctx: CtxOf,
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
