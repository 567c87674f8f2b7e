// Comparing without reporting: what a change would report, used to match alternatives by what
// they accept.
import { normalize } from "../resolve.ts";
import { ruleOf } from "../rules.ts";
import type { SchemaCtx } from "./context.ts";

/**
 * What a change from x (base) to y (revision) would report in c's direction, without reporting
 * it: the levels of its findings. Used to compare alternatives by what they accept, refs resolved.
 */
// Probes are remembered per pair of nodes and context; a pair met again while it is being probed
// (recursive schemas) is taken as equal, so probing stays linear in the pairs compared.
const probes = new WeakMap<object, WeakMap<object, Map<string, Set<string>>>>();
function probe(c: SchemaCtx, x: any, y: any): Set<string> {
  const bx = normalize(c.base, x).id;
  const ry = normalize(c.rev, y).id;
  const key = `${c.dir}|${c.where}|${!!c.exempt}|${!!c.loose}`;
  let inner = probes.get(bx);
  if (!inner) probes.set(bx, (inner = new WeakMap()));
  let byKey = inner.get(ry);
  if (!byKey) inner.set(ry, (byKey = new Map()));
  const known = byKey.get(key);
  if (known) return known;
  const levels = new Set<string>();
  byKey.set(key, levels);
  c.diff(x, y, {
    ...c,
    ptr: [],
    seen: new Map(),
    depth: c.depth + 1,
    emit: (id) => {
      levels.add(ruleOf(id).level);
    },
  });
  return levels;
}

/** Same accepted values: no finding at all from x (base) to y (revision). */
export const equivalent = (c: SchemaCtx, x: any, y: any): boolean => probe(c, x, y).size === 0;

/** y can stand in for x in c's direction: the change from x to y breaks nobody. */
export const compatibleReplacement = (c: SchemaCtx, x: any, y: any) => {
  const l = probe(c, x, y);
  return !l.has("ERR") && !l.has("WARN");
};
