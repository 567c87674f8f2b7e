// Schemathesis-style operation filters: --include-path, --include-operation-id, --include-tag and
// their --exclude- twins. Values match exactly; several values of one flag are alternatives.
import type { Operation } from "./types.ts";

export interface Filters {
  includePath?: string[];
  excludePath?: string[];
  includeOperationId?: string[];
  excludeOperationId?: string[];
  includeTag?: string[];
  excludeTag?: string[];
}

export function selectOperations(ops: Operation[], f: Filters): Operation[] {
  const has = (list: string[] | undefined) => Boolean(list && list.length);
  return ops.filter((op) => {
    // A fragment path (`/files/{id}#get_shared_link`) is selected by its key or by the path it sends.
    if (has(f.includePath) && !f.includePath!.includes(op.path) && !f.includePath!.includes(op.pathKey ?? op.path)) return false;
    if (has(f.includeOperationId) && !f.includeOperationId!.includes(op.id)) return false;
    if (has(f.includeTag) && !op.tags.some((t) => f.includeTag!.includes(t))) return false;
    if (f.excludePath?.includes(op.path) || (op.pathKey && f.excludePath?.includes(op.pathKey))) return false;
    if (f.excludeOperationId?.includes(op.id)) return false;
    if (op.tags.some((t) => f.excludeTag?.includes(t))) return false;
    return true;
  });
}
