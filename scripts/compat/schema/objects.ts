// An object schema's properties (added, removed, required or not, read-only or write-only) and
// additionalProperties.
import type { Normal, Schema } from "../resolve.ts";
import { normalize } from "../resolve.ts";
import type { Where } from "../rules.ts";
import { diffIn, nested, type SchemaCtx } from "./context.ts";

export function compareObject(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string, at?: (string | number)[]) => void,
  sub: (k: (string | number)[], w?: Where, e?: boolean) => SchemaCtx,
): void {
  const p1: Schema = b.s.properties ?? {};
  const p2: Schema = r.s.properties ?? {};
  const req1 = new Set<string>(Array.isArray(b.s.required) ? b.s.required : []);
  const req2 = new Set<string>(Array.isArray(r.s.required) ? r.s.required : []);
  const where = nested[c.where];
  const hidden = (s: Schema | undefined) =>
    !!s && (c.dir === "request" ? s.readOnly === true : s.writeOnly === true);
  for (const name of new Set([...Object.keys(p1), ...Object.keys(p2)])) {
    const at = [...c.ptr, "properties", name];
    const s1 = name in p1 ? normalize(c.base, p1[name]).s : undefined;
    const s2 = name in p2 ? normalize(c.rev, p2[name]).s : undefined;
    const exempt = c.exempt || hidden(s2 ?? s1);
    const id = (kind: string) =>
      exempt
        ? `${c.dir}-${c.dir === "request" ? "read-only" : "write-only"}-${where}-${kind}`
        : `${c.dir}-${where}-${kind}`;
    if (!s1) {
      c.emit(
        id(
          req2.has(name) && s2?.default === undefined
            ? "added-required"
            : req2.has(name)
              ? "added-required"
              : "added-optional",
        ),
        `property ${name} added${req2.has(name) ? " (required)" : ""}`,
        at,
      );
      continue;
    }
    if (!s2) {
      c.emit(
        id(req1.has(name) ? "removed-required" : "removed-optional"),
        `property ${name} removed`,
        at,
      );
      continue;
    }
    if (req1.has(name) !== req2.has(name))
      c.emit(
        id(req2.has(name) ? "became-required" : "became-optional"),
        `property ${name} became ${req2.has(name) ? "required" : "optional"}`,
        at,
      );
    // readOnly values are not sent in a request, writeOnly ones not returned in a response: a
    // property crossing that line appears (a required one must now be sent) or disappears (a
    // response property no longer returned reads as a removed one).
    for (const [flag, label] of [
      ["readOnly", "read-only"],
      ["writeOnly", "write-only"],
    ] as const)
      if (!!s1[flag] !== !!s2[flag]) {
        const hiddenHere = (flag === "readOnly") === (c.dir === "request");
        const kind =
          hiddenHere && !s2[flag] && req2.has(name) && req1.has(name)
            ? `required-became-not-${label}`
            : flag === "writeOnly" && c.dir === "response" && s2[flag] && !c.exempt
              ? `${req1.has(name) ? "required" : "optional"}-became-write-only`
              : `became-${s2[flag] ? "" : "not-"}${label}`;
        c.emit(`${c.dir}-${where}-${kind}`, `property ${name} ${kind}`, at);
      }
    diffIn(sub(["properties", name], where, exempt), p1[name], p2[name]);
  }
  // A required name without a declared property constrains nothing a client can see: not compared.
  const a1 = b.s.additionalProperties;
  const a2 = r.s.additionalProperties;
  if (a1 === undefined && a2 === undefined) return;
  const open = (a: any) =>
    a === undefined || a === true || (a && typeof a === "object" && Object.keys(a).length === 0);
  if (open(a1) && open(a2)) return;
  if (a1 === false && a2 !== false)
    emit("additional-properties-relaxed", "additionalProperties no longer false");
  else if (a2 === false && a1 !== false)
    emit("additional-properties-restricted", "additionalProperties became false");
  else if (open(a1))
    emit("additional-properties-restricted", "additionalProperties now has a schema");
  else if (open(a2))
    emit("additional-properties-relaxed", "additionalProperties no longer has a schema");
  else diffIn(sub(["additionalProperties"]), a1, a2);
}
