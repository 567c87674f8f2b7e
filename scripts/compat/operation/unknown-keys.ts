// A key that differs in an operation or a parameter and that no comparison knows (a misspelt key,
// ...) is reported as unclassified, never silently passed over.
import type { Doc } from "../load.ts";
import { fingerprint } from "../resolve.ts";
import type { Emit } from "./context.ts";

export function unknownKeys(
  a: Doc,
  b: Doc,
  known: Set<string>,
  ptr: (string | number)[],
  emit: Emit,
): void {
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (!known.has(k) && !k.startsWith("x-") && fingerprint(a[k]) !== fingerprint(b[k]))
      emit("unclassified", `${k} changed`, [...ptr, k]);
}
