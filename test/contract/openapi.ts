// Helpers to read the committed contract in tests.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export type Doc = Record<string, any>;

export function loadContract(file = "openapi.json"): Doc {
  return JSON.parse(readFileSync(`${root}generated/openapi/${file}`, "utf8"));
}

export interface Operation {
  method: string;
  path: string;
  op: Doc;
}

export function operations(doc: Doc): Operation[] {
  const list: Operation[] = [];
  for (const [path, item] of Object.entries<Doc>(doc.paths))
    for (const [method, op] of Object.entries<Doc>(item)) list.push({ method, path, op });
  return list;
}

/** Follows a local `$ref` (one level is all the contract uses for schemas). */
export function deref(doc: Doc, schema: Doc): Doc {
  if (!schema?.$ref) return schema;
  return schema.$ref
    .replace(/^#\//, "")
    .split("/")
    .reduce((node: Doc, key: string) => node[key], doc);
}

/** The resolved schema of a query or path parameter. */
export function parameterSchema(doc: Doc, op: Doc, name: string): Doc {
  const parameter = op.parameters?.find((p: Doc) => p.name === name);
  if (!parameter) throw new Error(`${op.operationId} has no parameter ${name}`);
  return deref(doc, parameter.schema);
}

/** The resolved schema of a property of the JSON request body. */
export function bodyProperty(doc: Doc, op: Doc, name: string): Doc {
  const body = deref(doc, op.requestBody.content["application/json"].schema);
  return deref(doc, body.properties[name]);
}
