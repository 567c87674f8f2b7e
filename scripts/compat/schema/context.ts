// What a schema comparison carries from node to node (schema-diff.ts), and the small helpers its
// parts share.
import type { Doc } from "../load.ts";
import { fingerprint } from "../resolve.ts";
import type { Direction, Where } from "../rules.ts";

export interface SchemaCtx {
  dir: Direction;
  where: Where;
  /** JSON pointer segments of the value in the revision (or base, when only there). */
  ptr: (string | number)[];
  base: Doc;
  rev: Doc;
  /** Inside a readOnly value of a request or a writeOnly value of a response: never on the wire. */
  exempt?: boolean;
  /** The media type is not JSON (form, text): scalar types travel as text, so their changes are compatible. */
  loose?: boolean;
  emit: (id: string, message: string, ptr: (string | number)[]) => void;
  seen: Map<object, Set<object>>;
  depth: number;
  /**
   * The comparison itself (schema-diff.ts `diffSchema`), set where the root context is made: the
   * parts compare nested schemas through it, so none of them imports the file that imports them.
   */
  diff: (baseRaw: any, revRaw: any, c: SchemaCtx) => void;
}

/** Compares a nested pair of schemas in the context `c` made for them. */
export const diffIn = (c: SchemaCtx, baseRaw: any, revRaw: any): void => c.diff(baseRaw, revRaw, c);

/** Where a value inside a value of each kind is: a property of a body, of a parameter, of a header. */
export const nested: Record<Where, Where> = {
  body: "property",
  property: "property",
  parameter: "parameter-property",
  "parameter-property": "parameter-property",
  header: "header-property",
  "header-property": "header-property",
};

export const same = (a: unknown, b: unknown) => fingerprint(a) === fingerprint(b);
export const show = (v: unknown) => JSON.stringify(v);
