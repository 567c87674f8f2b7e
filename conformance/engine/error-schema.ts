// Which schema an error answer is judged by. An operation's own documentation for the status (the
// exact code, its `4XX` range, its `default`) is the only judge the contract gives: one
// operation's 404 body says nothing about another's errors, nor about a 405 the contract never
// describes (issue 39 item 2; before, the error schema most operations shared judged everyone's).
// An API that promises one error body everywhere, the router's own answers included, says so in
// the config: `errorSchema`, a schema or `{ "$ref": "#/components/schemas/Error" }`.
import { ContractError } from "./load-contract.ts";
import { responseFor } from "./response-spec.ts";
import { schemaPointer } from "./schema-normalize.ts";
import type { Contract, JsonSchema, Operation } from "./types.ts";

/** The config's `errorSchema`, a `$ref` into the contract resolved to the schema the operations use. */
export function configuredErrorSchema(contract: Contract, configured: JsonSchema | undefined): JsonSchema | undefined {
  if (!configured || typeof configured !== "object" || typeof configured.$ref !== "string") return configured;
  const ref = configured.$ref;
  for (const op of contract.operations) {
    for (const r of op.responses) {
      for (const media of Object.values(r.content)) if (media.schema !== undefined && schemaPointer(media.schema) === ref) return media.schema;
    }
  }
  throw new ContractError(`config errorSchema ${ref}: no response of the contract uses that schema`);
}

/** The JSON schema the operation documents for this status, if any. */
export function documentedErrorSchema(op: Operation, status: number): JsonSchema | undefined {
  const spec = responseFor(op, status);
  return spec && Object.entries(spec.content).find(([m]) => /json/i.test(m))?.[1].schema;
}
