// The typed handler interfaces: one interface per tag, one member per operation, typed from the
// openapi-typescript `paths` of the same contract.
import type { OperationInfo } from "./operation-object.ts";
import { renderTemplate } from "./render.ts";

export function interfaceName(tag: string): string {
  const words = tag.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join("") + "Handlers";
}

function typeName(operationId: string): string {
  return operationId[0].toUpperCase() + operationId.slice(1) + "Operation";
}

export async function renderHandlersFile(operations: OperationInfo[], typesImport: string): Promise<string> {
  const byTag = new Map<string, OperationInfo[]>();
  for (const op of operations) {
    if (!byTag.has(op.tag)) byTag.set(op.tag, []);
    byTag.get(op.tag)!.push(op);
  }
  const aliases = operations
    .map((op) => `export type ${typeName(op.operationId)} = paths[${JSON.stringify(op.path)}][${JSON.stringify(op.method)}];`)
    .join("\n");
  const interfaces = [...byTag]
    .map(([tag, ops]) => {
      const members = ops
        .map((op) => `  /** ${op.method.toUpperCase()} ${op.path}${op.scope ? ` (scope ${op.scope})` : ""} */\n  ${op.operationId}: Handler<${typeName(op.operationId)}, Auth>;`)
        .join("\n");
      return `/** Operations tagged ${JSON.stringify(tag)}. */\nexport interface ${interfaceName(tag)}<Auth = unknown> {\n${members}\n}`;
    })
    .join("\n\n");
  const all = [...byTag.keys()].map((tag) => `${interfaceName(tag)}<Auth>`).join(" &\n  ");
  return renderTemplate("handlers.ts.tpl", { typesImport, aliases, interfaces, all });
}
