// What the data checks cannot judge because the suite could not resolve or compile a part of the
// contract they depend on. A check then reports its pair "unvalidated" with this reason: never a
// pass (a dangling reference read as "any value" used to let every response pass).
import type { Operation, ResponseSpec } from "./types.ts";
import { unvalidatedParamReason, unvalidatedReason } from "./validator.ts";

/** Why the operation's requests cannot be called valid or invalid, if they cannot. */
export function requestUnjudged(op: Operation): string | undefined {
  return op.unresolved?.[0] ?? unvalidatedReason(op.body?.schema) ?? op.parameters.map((p) => unvalidatedParamReason(p.schema)).find(Boolean);
}

/** Why a documented response cannot be judged at all (its object is a dangling reference), if it cannot. */
export function responseUnjudged(spec: ResponseSpec | undefined): string | undefined {
  return spec?.unresolved;
}
