// What a schema allows of a value beyond its type: const, default, pattern, multipleOf, the bounds
// (numeric, length, items, properties, contains) and uniqueItems.
import type { Bound, Normal } from "../resolve.ts";
import { same, show } from "./context.ts";

export function compareConstraints(b: Normal, r: Normal, emit: (k: string, m: string) => void): void {
  const bs = b.s;
  const rs = r.s;
  if (!same(bs.const, rs.const)) {
    if (bs.const === undefined) emit("const-added", `const ${show(rs.const)} added`);
    else if (rs.const === undefined) emit("const-removed", `const ${show(bs.const)} removed`);
    else emit("const-changed", `const changed from ${show(bs.const)} to ${show(rs.const)}`);
  }
  if (!same(bs.default, rs.default)) {
    if (bs.default === undefined) emit("default-value-added", `default ${show(rs.default)} added`);
    else if (rs.default === undefined)
      emit("default-value-removed", `default ${show(bs.default)} removed`);
    else
      emit(
        "default-value-changed",
        `default changed from ${show(bs.default)} to ${show(rs.default)}`,
      );
  }
  const pat1 = bs.pattern || undefined; // an empty pattern matches everything
  const pat2 = rs.pattern || undefined;
  if (pat1 !== pat2) {
    if (pat1 === undefined) emit("pattern-added", `pattern ${rs.pattern} added`);
    else if (pat2 === undefined || pat2 === ".*" || pat2 === "^.*$")
      emit("pattern-removed", `pattern ${bs.pattern} removed`);
    else emit("pattern-changed", `pattern changed from ${bs.pattern} to ${rs.pattern}`);
  }
  if (bs.multipleOf !== rs.multipleOf) {
    const m1 = bs.multipleOf as number | undefined;
    const m2 = rs.multipleOf as number | undefined;
    if (m2 === undefined || (m1 !== undefined && Number.isInteger(m1 / m2)))
      emit("multiple-of-relaxed", `multipleOf ${m1} -> ${m2 ?? "none"}`);
    else if (m1 === undefined || Number.isInteger(m2 / m1))
      emit("multiple-of-tightened", `multipleOf ${m1 ?? "none"} -> ${m2}`);
    else emit("multiple-of-changed", `multipleOf ${m1} -> ${m2}`);
  }
  compareBound("max", "upper", b.max, r.max, emit);
  compareBound("min", "lower", b.min, r.min, emit);
  for (const [key, name, side] of [
    ["maxLength", "max-length", "upper"],
    ["minLength", "min-length", "lower"],
    ["maxItems", "max-items", "upper"],
    ["minItems", "min-items", "lower"],
    ["maxProperties", "max-properties", "upper"],
    ["minProperties", "min-properties", "lower"],
    ["maxContains", "max-contains", "upper"],
    ["minContains", "min-contains", "lower"],
  ] as const) {
    const v1 = typeof bs[key] === "number" ? { value: bs[key], exclusive: false } : undefined;
    const v2 = typeof rs[key] === "number" ? { value: rs[key], exclusive: false } : undefined;
    compareBound(name, side, v1, v2, emit);
  }
  if (!!bs.uniqueItems !== !!rs.uniqueItems)
    // uniqueItems narrows like a bound: set, it refuses arrays with repeats.
    emit(
      rs.uniqueItems ? "unique-items-set" : "unique-items-unset",
      `uniqueItems ${rs.uniqueItems ? "set" : "removed"}`,
    );
}

function compareBound(
  name: string,
  side: "upper" | "lower",
  v1: Bound | undefined,
  v2: Bound | undefined,
  emit: (k: string, m: string) => void,
): void {
  if (!v1 && !v2) return;
  if (v1 && v2 && v1.value === v2.value && v1.exclusive === v2.exclusive) return;
  const kind =
    (v2?.exclusive ?? v1?.exclusive) && (name === "max" || name === "min")
      ? `exclusive-${name}`
      : name;
  const message = `${kind}: ${v1 ? v1.value : "none"} -> ${v2 ? v2.value : "none"}`;
  if (!v1) return emit(`${kind}-set`, message);
  if (!v2) return emit(`${kind}-unset`, message);
  // Tighter: a lower upper bound or a higher lower bound, or the same value made exclusive.
  const tighter =
    side === "upper"
      ? v2.value < v1.value || (v2.value === v1.value && v2.exclusive)
      : v2.value > v1.value || (v2.value === v1.value && v2.exclusive);
  emit(`${kind}-${(side === "upper") === tighter ? "decreased" : "increased"}`, message);
}
