// Headers the contract marks required for a response must be present and match their schema.
import type { Check } from "../engine/check-api.ts";
import { asDocumented, responseFor } from "../engine/response-spec.ts";
import { validateParam } from "../engine/validator.ts";

export const responseHeadersConformance: Check = {
  name: "response_headers_conformance",
  title: "Response header missing or invalid",
  severity: "medium",
  stateless: true,
  response(_ctx, ex) {
    if (!asDocumented(ex)) return null;
    const spec = responseFor(ex.operation, ex.response.status);
    const headers = Object.entries(spec?.headers ?? {});
    if (!headers.length) return null;
    const problems: string[] = [];
    for (const [name, h] of headers) {
      const value = ex.response.headers[name];
      if (value === undefined) {
        if (h.required) problems.push(`${name} missing`);
        continue;
      }
      if (h.schema && !validateParam(h.schema, value)) problems.push(`${name}: "${value}" does not match ${JSON.stringify(h.schema)}`);
    }
    return problems.map((p) => ({ message: `[${ex.response.status}] ${p}`, expected: "documented headers", got: p }));
  },
};
