// What the parts of an operation's comparison are handed (compare.ts's compareOperation): the
// finding's reporter and the schema comparison's context for one place of the operation.
import type { Direction } from "../rules.ts";
import type { SchemaCtx } from "../schema-diff.ts";

export type Emit = (id: string, message: string, ptr: (string | number)[]) => void;

/** The schema comparison's context for a value at `p`, judged in direction `d` as a `w`. */
export type CtxOf = (d: Direction, w: SchemaCtx["where"], p: (string | number)[]) => SchemaCtx;
