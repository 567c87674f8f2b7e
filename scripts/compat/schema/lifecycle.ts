// A schema's own lifecycle: deprecated (with or without a valid x-sunset) and x-stability-level.
import type { Schema } from "../resolve.ts";
import { show, type SchemaCtx } from "./context.ts";

const stability = ["draft", "alpha", "beta", "stable"];

export function compareSchemaLifecycle(bs: Schema, rs: Schema, c: SchemaCtx, emit: (k: string, m: string) => void): void {
  if (!!bs.deprecated !== !!rs.deprecated) {
    if (!rs.deprecated) emit("reactivated", "no longer deprecated");
    else if (rs["x-sunset"] === undefined) emit("deprecated", "deprecated");
    else if (Number.isNaN(Date.parse(String(rs["x-sunset"]))))
      emit("deprecated-sunset-invalid", `deprecated with x-sunset ${show(rs["x-sunset"])}`);
    else emit("deprecated-with-sunset", `deprecated, sunset ${rs["x-sunset"]}`);
  }
  if (
    bs["x-stability-level"] !== rs["x-stability-level"] &&
    [bs["x-stability-level"], rs["x-stability-level"]].some(
      (v) => v !== undefined && !stability.includes(v),
    )
  )
    c.emit(
      "api-invalid-stability-level",
      `x-stability-level ${show(rs["x-stability-level"])} is not draft, alpha, beta or stable`,
      [...c.ptr, "x-stability-level"],
    );
  // Only a declared level can go down: none declared promises nothing to compare with.
  const s1 = stability.indexOf(bs["x-stability-level"]);
  const s2 = stability.indexOf(rs["x-stability-level"] ?? "stable");
  if (s1 !== s2 && s1 >= 0 && s2 >= 0)
    emit(
      s2 < s1 ? "stability-decreased" : "stability-increased",
      `x-stability-level ${bs["x-stability-level"] ?? "stable"} -> ${rs["x-stability-level"] ?? "stable"}`,
    );
}
