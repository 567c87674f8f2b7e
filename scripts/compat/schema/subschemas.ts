// Subschemas that only constrain (if/then/else, contains, not, propertyNames, unevaluated*,
// contentSchema) and the keyed ones (dependentRequired, dependentSchemas, patternProperties):
// added or removed as a whole, else compared inside.
import type { Schema } from "../resolve.ts";
import type { Where } from "../rules.ts";
import { diffIn, same, type SchemaCtx } from "./context.ts";

export function compareSubschemas(
  bs: Schema,
  rs: Schema,
  c: SchemaCtx,
  emit: (k: string, m: string) => void,
  sub: (k: (string | number)[], w?: Where) => SchemaCtx,
): void {
  for (const [key, name] of [
    ["if", "if"],
    ["then", "then"],
    ["else", "else"],
    ["contains", "contains"],
    ["propertyNames", "property-names"],
    ["unevaluatedItems", "unevaluated-items"],
    ["unevaluatedProperties", "unevaluated-properties"],
    ["contentSchema", "content-schema"],
  ] as const) {
    const x = bs[key];
    const y = rs[key];
    if (x === undefined && y === undefined) continue;
    if (x === undefined || (key.startsWith("unevaluated") && x === true && y === false))
      emit(`${name}-added`, `${key} added`);
    else if (y === undefined || (key.startsWith("unevaluated") && x === false && y === true))
      emit(`${name}-removed`, `${key} removed`);
    else if (typeof x === "object" && typeof y === "object") diffIn(sub([key], c.where), x, y);
    else if (!same(x, y)) emit(`${name}-added`, `${key} changed`);
  }
  if (!same(bs.not, rs.not)) {
    if (bs.not === undefined) emit("not-added", "not added");
    else if (rs.not === undefined) emit("not-removed", "not removed");
    // Inside not the sense flips in theory; oasdiff compares it like any subschema, and so does the gate.
    else diffIn(sub(["not"], c.where), bs.not, rs.not);
  }
  compareMap("dependentRequired", "dependent-required", bs, rs, emit, (k) => {
    if (!same(bs.dependentRequired[k], rs.dependentRequired[k]))
      emit("dependent-required-changed", `dependentRequired ${k} changed`);
  });
  compareMap("dependentSchemas", "dependent-schema", bs, rs, emit, (k) =>
    diffIn(sub(["dependentSchemas", k]), bs.dependentSchemas[k], rs.dependentSchemas[k]),
  );
  compareMap("patternProperties", "pattern-property", bs, rs, emit, (k) =>
    diffIn(sub(["patternProperties", k]), bs.patternProperties[k], rs.patternProperties[k]),
  );
}

function compareMap(
  key: string,
  name: string,
  bs: Schema,
  rs: Schema,
  emit: (k: string, m: string) => void,
  both: (k: string) => void,
): void {
  const m1 = bs[key] ?? {};
  const m2 = rs[key] ?? {};
  for (const k of new Set([...Object.keys(m1), ...Object.keys(m2)])) {
    if (!(k in m1)) emit(`${name}-added`, `${key} ${k} added`);
    else if (!(k in m2)) emit(`${name}-removed`, `${key} ${k} removed`);
    else both(k);
  }
}
