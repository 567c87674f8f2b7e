// Alternatives and members (anyOf, oneOf, allOf) matched by what they accept, and the
// discriminator with its mapping.
import type { Doc } from "../load.ts";
import { fingerprint, isAnnotationOnly, normalize, type Normal } from "../resolve.ts";
import type { Where } from "../rules.ts";
import { diffIn, same, type SchemaCtx } from "./context.ts";
import { compatibleReplacement, equivalent } from "./probe.ts";

/** Matches alternatives of two lists: by component name, then by content, then by title, then in order. */
function matchMembers(
  c: SchemaCtx,
  l1: any[],
  l2: any[],
  name1?: string,
  name2?: string,
): { pairs: [number, number][]; added: number[]; removed: number[] } {
  const n1 = l1.map((m) => normalize(c.base, m));
  const n2 = l2.map((m) => normalize(c.rev, m));
  // A schema standing for itself keeps the component name it was reached by.
  if (name1 && n1.length === 1) n1[0].name = name1;
  if (name2 && n2.length === 1) n2[0].name = name2;
  const free2 = new Set(l2.map((_, i) => i));
  const pairs: [number, number][] = [];
  const left: number[] = [];
  // Two components that exist side by side in both documents are two types, even with the same
  // structure (oasdiff: generated clients tell them apart); otherwise (a component renamed, an
  // inline schema) alternatives are what they accept, refs resolved.
  const component = (d: Doc, name?: string) =>
    !!name && !!d.components?.schemas && name in d.components.schemas;
  const nominal = (i: number, j: number) =>
    !!n1[i].name &&
    !!n2[j].name &&
    n1[i].name !== n2[j].name &&
    component(c.rev, n1[i].name) &&
    component(c.base, n2[j].name);
  const tests: ((i: number, j: number) => boolean)[] = [
    (i, j) => !!n1[i].name && n1[i].name === n2[j].name,
    (i, j) => !nominal(i, j) && fingerprint(n1[i].s) === fingerprint(n2[j].s),
    (i, j) => !nominal(i, j) && equivalent(c, l1[i], l2[j]),
    (i, j) => !!n1[i].s.title && n1[i].s.title === n2[j].s.title,
  ];
  let rest = l1.map((_, i) => i);
  for (const t of tests) {
    const next: number[] = [];
    for (const i of rest) {
      const j = [...free2].find((j) => t(i, j));
      if (j === undefined) next.push(i);
      else {
        pairs.push([i, j]);
        free2.delete(j);
      }
    }
    rest = next;
  }
  // Same count of unnamed members left on both sides: they were edited in place. Named ones
  // (component refs) that differ are another alternative, not an edit.
  if (
    rest.length === free2.size &&
    rest.every((i) => !n1[i].name) &&
    [...free2].every((j) => !n2[j].name)
  ) {
    const f = [...free2];
    rest.forEach((i, k) => pairs.push([i, f[k]]));
    return { pairs, added: [], removed: [] };
  }
  // An alternative replaced by one that breaks nobody in this direction (a wider one in a
  // request, a narrower one in a response) is an edit of it, compared inside.
  for (const i of rest) {
    const j = [...free2].find((j) => !nominal(i, j) && compatibleReplacement(c, l1[i], l2[j]));
    if (j === undefined) left.push(i);
    else {
      pairs.push([i, j]);
      free2.delete(j);
    }
  }
  // One alternative replaced by one other (not two coexisting components): an edit, compared
  // inside, so what the new one accepts decides in both directions (a wider alternative in a
  // response is news to readers even where adding an anyOf alternative is not).
  if (left.length === 1 && free2.size === 1) {
    const j = [...free2][0];
    if (!nominal(left[0], j)) {
      pairs.push([left[0], j]);
      return { pairs, added: [], removed: [] };
    }
  }
  return { pairs, added: [...free2], removed: left };
}

export function compareComposition(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string, at?: (string | number)[]) => void,
  sub: (k: (string | number)[], w?: Where) => SchemaCtx,
): void {
  for (const [key, name] of [
    ["anyOf", "any-of"],
    ["oneOf", "one-of"],
  ] as const) {
    const l1: any[] = Array.isArray(b.s[key]) ? b.s[key] : [];
    const l2: any[] = Array.isArray(r.s[key]) ? r.s[key] : [];
    if (!l1.length && !l2.length) continue;
    const m = matchMembers(c, l1, l2);
    for (const j of m.added)
      emit(`${name}-added`, `${key} alternative ${normalize(c.rev, l2[j]).name ?? j} added`, [
        ...c.ptr,
        key,
        j,
      ]);
    for (const i of m.removed)
      emit(`${name}-removed`, `${key} alternative ${normalize(c.base, l1[i]).name ?? i} removed`, [
        ...c.ptr,
        key,
        i,
      ]);
    for (const [i, j] of m.pairs) diffIn(sub([key, j], c.where), l1[i], l2[j]);
  }
  // allOf: membership is compared here; the merged content was compared as one schema above.
  const a1 = b.allOf ?? [];
  const a2 = r.allOf ?? [];
  if (!a1.length && !a2.length) return;
  // A side without allOf stands for itself as the one member. Members are matched as anyOf's are
  // (name, content, title, unnamed ones edited in place); a matched member's content was compared
  // in the merged schema, so only membership is reported here.
  const raw1 = a1.length ? a1.map((m) => m.raw) : Object.keys(b.s).length ? [b.s] : [];
  const raw2 = a2.length ? a2.map((m) => m.raw) : Object.keys(r.s).length ? [r.s] : [];
  const named1 = a1.length ? undefined : b.name;
  const named2 = a2.length ? undefined : r.name;
  const m = matchMembers(c, raw1, raw2, named1, named2);
  for (const j of m.added) {
    const n = normalize(c.rev, raw2[j]);
    emit(
      isAnnotationOnly(n.s) ? "all-of-added-annotation-only" : "all-of-added",
      `allOf member ${n.name ?? j} added`,
      [...c.ptr, "allOf", j],
    );
  }
  for (const i of m.removed) {
    const n = normalize(c.base, raw1[i]);
    emit(
      isAnnotationOnly(n.s) ? "all-of-removed-annotation-only" : "all-of-removed",
      `allOf member ${n.name ?? i} removed`,
      [...c.ptr, "allOf", i],
    );
  }
}

/** Whether the component a discriminator mapping names (a ref, or a bare schema name) is still an alternative of r. */
const mappingRef = (v: string) => (v.startsWith("#") ? v : `#/components/schemas/${v}`);

export function compareDiscriminator(
  b: Normal,
  r: Normal,
  c: SchemaCtx,
  emit: (k: string, m: string) => void,
): void {
  const d1 = b.s.discriminator;
  const d2 = r.s.discriminator;
  if (same(d1, d2)) return;
  if (!d1) return emit("discriminator-added", "discriminator added");
  if (!d2) return emit("discriminator-removed", "discriminator removed");
  if (d1.propertyName !== d2.propertyName)
    emit(
      "discriminator-property-name-changed",
      `discriminator property ${d1.propertyName} -> ${d2.propertyName}`,
    );
  const m1: Record<string, string> = d1.mapping ?? {};
  const m2: Record<string, string> = d2.mapping ?? {};
  const alternatives = [
    ...(Array.isArray(r.s.oneOf) ? r.s.oneOf : []),
    ...(Array.isArray(r.s.anyOf) ? r.s.anyOf : []),
  ];
  // The old target, compared by what it accepts: a renamed identical component is the same one.
  const stillAlternative = (ref: string) =>
    alternatives.length === 0 ||
    alternatives.some((a) => equivalent(c, { $ref: mappingRef(ref) }, a));
  for (const k of new Set([...Object.keys(m1), ...Object.keys(m2)])) {
    if (!(k in m1)) emit("discriminator-mapping-added", `mapping ${k} added`);
    else if (!(k in m2)) {
      // Without an entry a value maps to the component of that name (implicit mapping).
      const implicit = mappingRef(m1[k]).split("/").pop() === k;
      if (implicit && normalize(c.rev, { $ref: mappingRef(k) }).s["x-compat-unresolved"] === undefined)
        continue;
      emit(
        stillAlternative(m1[k])
          ? "discriminator-mapping-deleted"
          : "discriminator-mapping-deleted-with-alternative",
        `mapping ${k} deleted`,
      );
    } else if (
      mappingRef(m1[k]) !== mappingRef(m2[k]) &&
      !equivalent(c, { $ref: mappingRef(m1[k]) }, { $ref: mappingRef(m2[k]) })
    )
      emit("discriminator-mapping-changed", `mapping ${k}: ${m1[k]} -> ${m2[k]}`);
  }
}
