// What the suite reads from a contract, as plain data: per operation its identity, parameters,
// body and responses, schemas written out to a bounded depth (they are shared and may be cyclic).
// Two loads of the same contract (multi-file, or bundled by Redocly) must give equal summaries.
import type { Contract, JsonSchema } from "./types.ts";

export interface OperationSummary {
  id: string;
  method: string;
  path: string;
  parameters: string[];
  body?: { mediaType: string; required: boolean; schema: unknown };
  responses: { status: string; headers: string[]; content: Record<string, unknown> }[];
}

export function summarize(contract: Contract, depth = 4): OperationSummary[] {
  return contract.operations
    .map((o) => ({
      id: o.id,
      method: o.method,
      path: o.pathKey ?? o.path,
      parameters: o.parameters.map((p) => `${p.in}:${p.name}${p.required ? " (required)" : ""} ${JSON.stringify(shape(p.schema, depth))}`).sort(),
      ...(o.body ? { body: { mediaType: o.body.mediaType, required: o.body.required, schema: shape(o.body.schema, depth) } } : {}),
      responses: o.responses
        .map((r) => ({ status: r.status, headers: Object.keys(r.headers).sort(), content: Object.fromEntries(Object.entries(r.content).map(([m, media]) => [m, shape(media.schema, depth)])) }))
        .sort((a, b) => a.status.localeCompare(b.status)),
    }))
    .sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
}

/** A schema as a tree cut at `depth` (keys sorted): equal for equal schemas, however shared. */
export function shape(schema: JsonSchema | undefined, depth: number): unknown {
  if (!schema || typeof schema !== "object") return schema;
  if (depth === 0) return "…";
  if (Array.isArray(schema)) return schema.map((s) => shape(s, depth - 1));
  return Object.fromEntries(
    Object.keys(schema)
      .sort()
      .map((k) => [k, shape((schema as any)[k], depth - 1)]),
  );
}
