// Headers the contract marks required for a response must be present and match their schema.
import type { Check } from "../engine/check-api.ts";
import { asDocumented, responseFor } from "../engine/response-spec.ts";
import { responseUnjudged } from "../engine/unjudged.ts";
import { unvalidatedParamReason, validateParam } from "../engine/validator.ts";

export const responseHeadersConformance: Check = {
  name: "response_headers_conformance",
  title: "Response header missing or invalid",
  severity: "medium",
  stateless: true,
  response(_ctx, ex) {
    if (!asDocumented(ex)) return null;
    const spec = responseFor(ex.operation, ex.response.status);
    const unresolved = responseUnjudged(spec);
    if (unresolved) return { unvalidated: unresolved };
    const headers = Object.entries(spec?.headers ?? {});
    if (!headers.length) return null;
    const problems: string[] = [];
    const unjudged: string[] = [];
    for (const [name, h] of headers) {
      const value = ex.response.headers[name];
      if (value === undefined) {
        if (h.required) problems.push(`${name} missing`);
        continue;
      }
      const reason = unvalidatedParamReason(h.schema);
      if (reason) unjudged.push(`${name}: ${reason}`);
      else if (h.schema && !validateParam(h.schema, value)) problems.push(`${name}: "${value}" does not match ${describeSchema(h.schema)}`);
    }
    if (!problems.length && unjudged.length) return { unvalidated: unjudged.join("; ") };
    return problems.map((p) => ({ message: `[${ex.response.status}] ${p}`, expected: "documented headers", got: p }));
  },
};

/** The schema for a message: shared schemas can be cyclic, so nested objects are elided. */
function describeSchema(schema: unknown): string {
  if (!schema || typeof schema !== "object") return JSON.stringify(schema);
  return JSON.stringify(Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, v && typeof v === "object" && !Array.isArray(v) ? "{…}" : v])));
}
