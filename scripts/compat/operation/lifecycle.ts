// An operation's lifecycle: deprecation and its x-sunset date, x-stability-level, and what the
// removal of an operation (or of its whole path) is after them.
import type { Doc } from "../load.ts";
import type { Emit } from "./context.ts";
import type { Operation } from "./operations.ts";

const stabilityLevels = ["draft", "alpha", "beta", "stable"];

export function sunsetOf(op: Doc): { date?: number; invalid: boolean; raw?: unknown } {
  const raw = op["x-sunset"];
  if (raw === undefined) return { invalid: false };
  const date = Date.parse(String(raw));
  return Number.isNaN(date) ? { invalid: true, raw } : { date, invalid: false, raw };
}

export function removedOperation(
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

/** Deprecation, sunset and stability level of an operation from `a` (base) to `b` (revision) at `ptr`. */
export function compareLifecycle(a: Doc, b: Doc, ptr: (string | number)[], emit: Emit): void {
  if (!!a.deprecated !== !!b.deprecated) {
    if (!b.deprecated)
      emit("endpoint-reactivated", "no longer deprecated", [...ptr, "deprecated"]);
    else {
      const s = sunsetOf(b);
      if (s.invalid)
        emit("api-deprecated-sunset-parse", `x-sunset ${JSON.stringify(s.raw)} is not a date`, [
          ...ptr,
          "x-sunset",
        ]);
      else
        emit(
          s.date === undefined ? "endpoint-deprecated" : "endpoint-deprecated-with-sunset",
          "deprecated",
          [...ptr, "deprecated"],
        );
    }
  } else if (a.deprecated && b.deprecated) {
    const s1 = sunsetOf(a);
    const s2 = sunsetOf(b);
    if (s1.raw !== undefined && s2.raw === undefined)
      emit("sunset-deleted", "the sunset date was deleted", ptr);
    else if ((s1.invalid || s2.invalid) && s1.raw !== s2.raw)
      emit("api-deprecated-sunset-parse", `x-sunset ${JSON.stringify(s2.raw)} is not a date`, [
        ...ptr,
        "x-sunset",
      ]);
    else if (s1.date !== undefined && s2.date !== undefined && s2.date < s1.date)
      emit("api-sunset-date-changed-too-small", `sunset moved from ${s1.raw} to ${s2.raw}`, [
        ...ptr,
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
      [...ptr, "x-stability-level"],
    );
  else if (st1 !== st2) {
    const i1 = stabilityLevels.indexOf(st1); // only a declared level can go down
    const i2 = stabilityLevels.indexOf(st2 ?? "stable");
    if (i1 >= 0 && i2 !== i1)
      emit(
        i2 < i1 ? "api-stability-decreased" : "api-stability-increased",
        `x-stability-level ${st1 ?? "stable"} -> ${st2 ?? "stable"}`,
        [...ptr, "x-stability-level"],
      );
  }
}
