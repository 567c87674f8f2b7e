// An array schema's items and prefixItems (tuples).
import type { Schema } from "../resolve.ts";
import { diffIn, same, type SchemaCtx } from "./context.ts";

export function compareArrays(
  bs: Schema,
  rs: Schema,
  emit: (k: string, m: string) => void,
  sub: (k: (string | number)[]) => SchemaCtx,
): void {
  // Items are compared when both sides describe arrays; a value that became an array (or stopped
  // being one) is already reported as a type change.
  if (bs.items !== undefined && rs.items !== undefined) {
    if (Array.isArray(bs.items) || Array.isArray(rs.items)) {
      if (!same(bs.items, rs.items))
        emit("prefix-items-" + (rs.items ? "added" : "removed"), "tuple items changed");
    } else diffIn(sub(["items"]), bs.items, rs.items);
  }
  compareList("prefixItems", "prefix-items", bs, rs, emit, sub);
  compareList("prefixItems", "prefix-items", bs, rs, emit, sub);
}

function compareList(
  key: string,
  name: string,
  bs: Schema,
  rs: Schema,
  emit: (k: string, m: string) => void,
  sub: (k: (string | number)[]) => SchemaCtx,
): void {
  const l1 = bs[key];
  const l2 = rs[key];
  if (!Array.isArray(l1) && !Array.isArray(l2)) return;
  if (!Array.isArray(l1) || (Array.isArray(l2) && l2.length > l1.length))
    emit(`${name}-added`, `${key} added`);
  if (!Array.isArray(l2) || (Array.isArray(l1) && l1.length > l2.length))
    emit(`${name}-removed`, `${key} removed`);
  if (Array.isArray(l1) && Array.isArray(l2))
    for (let i = 0; i < Math.min(l1.length, l2.length); i++)
      diffIn(sub([key, i]), l1[i], l2[i]);
}
