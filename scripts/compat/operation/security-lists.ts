// The security requirement lists as written (the operation's, or the document's global one):
// requirements and scopes added or removed. What they mean to existing clients: security.ts.
import type { Doc } from "../load.ts";
import type { Emit } from "./context.ts";

export function compareSecurityLists(
  l1: any,
  l2: any,
  prefix: "api" | "api-global",
  emit: Emit,
  ptr: (string | number)[],
): void {
  if (l1 === undefined && l2 === undefined) return;
  const key = (req: Doc) =>
    Object.keys(req ?? {})
      .sort()
      .join("+");
  const m1 = new Map<string, Doc>((Array.isArray(l1) ? l1 : []).map((r: Doc) => [key(r), r]));
  const m2 = new Map<string, Doc>((Array.isArray(l2) ? l2 : []).map((r: Doc) => [key(r), r]));
  for (const [k, r] of m2) {
    const old = m1.get(k);
    if (!old) {
      emit(`${prefix}-security-added`, `security requirement ${k || "{}"} added`, ptr);
      continue;
    }
    for (const scheme of Object.keys(r)) {
      const s1 = new Set<string>(old[scheme] ?? []);
      const s2 = new Set<string>(r[scheme] ?? []);
      for (const s of s2)
        if (!s1.has(s))
          emit(`${prefix}-security-scope-added`, `scope ${s} added to ${scheme}`, ptr);
      for (const s of s1)
        if (!s2.has(s))
          emit(`${prefix}-security-scope-removed`, `scope ${s} removed from ${scheme}`, ptr);
    }
  }
  for (const k of m1.keys())
    if (!m2.has(k))
      emit(`${prefix}-security-removed`, `security requirement ${k || "{}"} removed`, ptr);
}
