// The server stub generator: from an OpenAPI 3.x document, typed handler interfaces per tag and a
// fastify plugin that registers every operation with the contract's schemas (generated/server/).
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { renderHandlersFile } from "./handlers-file.ts";
import { collectOperations } from "./operation-object.ts";
import { renderTemplate } from "./render.ts";
import { componentsSchema } from "./schema-object.ts";

/** Runtime files that do not depend on the contract; copied from templates/server as they are. */
const staticFiles = [
  "errors.ts",
  "handler-types.ts",
  "json-body.ts",
  "method-not-allowed.ts",
  "operation-spec.ts",
  "register-routes.ts",
  "serialization.ts",
  "validation.ts",
  "index.ts",
];

export interface GenerateOptions {
  /** The openapi-typescript output to type handlers from; default `<outDir>/../types/openapi.d.ts`. */
  typesFile?: string;
}

export async function generateServerStubs(openapi: object, outDir: string, options: GenerateOptions = {}): Promise<void> {
  const doc = openapi as Record<string, unknown>;
  const openapi30 = String(doc.openapi ?? "").startsWith("3.0");
  const operations = collectOperations(doc);
  await mkdir(outDir, { recursive: true });

  const typesFile = await resolveTypesFile(openapi, outDir, options.typesFile);
  let typesImport = path.relative(outDir, typesFile).split(path.sep).join("/");
  if (!typesImport.startsWith(".")) typesImport = `./${typesImport}`;

  const files: Record<string, string> = {
    "handlers.ts": await renderHandlersFile(operations, typesImport),
    "operations.ts": await renderTemplate("operations.ts.tpl", {
      components: JSON.stringify(componentsSchema(doc, openapi30), null, 2),
      operations: JSON.stringify(
        operations.map((op) => ({ ...op, method: op.method.toUpperCase(), schema: dropUndefined(op.schema) })),
        null,
        2,
      ),
    }),
  };
  for (const name of staticFiles) files[name] = await renderTemplate(`${name}.tpl`);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(outDir, name), text);
}

/** Uses the project's generated types when present; otherwise generates them next to the stubs. */
async function resolveTypesFile(openapi: object, outDir: string, explicit?: string): Promise<string> {
  if (explicit) return explicit;
  const shared = path.join(outDir, "..", "types", "openapi.d.ts");
  if (existsSync(shared)) return shared;
  const own = path.join(outDir, "openapi-types.d.ts");
  await writeFile(own, await renderOpenapiTypes(openapi));
  return own;
}

/** openapi-typescript's output for a document; scripts/generate.ts adds `alphabetize`. */
export async function renderOpenapiTypes(openapi: object, options: { alphabetize?: boolean } = {}): Promise<string> {
  // openapi-typescript writes into the document it is given (discriminator enums, descriptions);
  // a copy keeps the stubs rendered from the contract as written.
  const ast = await openapiTS(structuredClone(openapi) as Parameters<typeof openapiTS>[0], options);
  return astToString(ast);
}

function dropUndefined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}
