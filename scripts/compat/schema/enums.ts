// A schema's enum: values added or removed, an enum made or unmade, open enums (x-extensible-enum).
import { fingerprint, type Normal } from "../resolve.ts";
import { same, show, type SchemaCtx } from "./context.ts";

export function compareEnum(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string) => void,
): void {
  const e1 = Array.isArray(b.s.enum) ? b.s.enum.filter((v: unknown) => v !== null) : undefined;
  const e2 = Array.isArray(r.s.enum) ? r.s.enum.filter((v: unknown) => v !== null) : undefined;
  const extensible = r.s["x-extensible-enum"] === true;
  if (e1 && e2) {
    const k1 = new Set(e1.map(fingerprint));
    const k2 = new Set(e2.map(fingerprint));
    for (const v of e2)
      if (!k1.has(fingerprint(v)))
        emit(
          extensible && c.dir === "response" ? "extensible-enum-value-added" : "enum-value-added",
          `enum value ${show(v)} added`,
        );
    for (const v of e1)
      if (!k2.has(fingerprint(v))) emit("enum-value-removed", `enum value ${show(v)} removed`);
  } else if (!e1 && e2) emit("became-enum", `now an enum of ${show(e2)}`);
  else if (e1 && !e2)
    emit(
      extensible && c.dir === "response" ? "extensible-enum-value-added" : "enum-removed",
      "no longer an enum",
    );
  // oasdiff's x-extensible-enum lists (an open enum given as a list of known values).
  const x1 = b.s["x-extensible-enum"];
  const x2 = r.s["x-extensible-enum"];
  if (Array.isArray(x1) && Array.isArray(x2))
    for (const v of x1)
      if (!x2.some((w) => same(v, w)))
        emit("x-extensible-enum-value-removed", `x-extensible-enum value ${show(v)} removed`);
}
