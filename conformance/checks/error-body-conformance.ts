// Every 4xx/5xx carries the contract's error body, including answers the router gives on its own
// (405, 404 of unknown paths) and the ones the probes provoke (401, 403, 429).
import type { Check } from "../engine/check-api.ts";
import { short } from "../engine/response-spec.ts";
import { validate } from "../engine/validator.ts";

export const errorBodyConformance: Check = {
  name: "error_body_conformance",
  title: "Error response without the error body",
  severity: "medium",
  stateless: true,
  response(ctx, ex) {
    const { status } = ex.response;
    // A HEAD answer has no body by definition (RFC 9110 9.3.2).
    if (status < 400 || ex.response.noResponse !== undefined || !ctx.errorSchema || ex.request.method === "HEAD") return null;
    if (!ex.response.isJson) return [{ message: `[${status}] error body is not JSON: ${short(ex.response.text, 120)}`, expected: "JSON error body", got: short(ex.response.text, 120) }];
    const verdict = validate(ctx.errorSchema, ex.response.json);
    if (verdict.unvalidated) return { unvalidated: verdict.unvalidated };
    if (verdict.valid) return [];
    return [{ message: `[${status}] ${verdict.errors.join("; ")}`, expected: "the contract's error body", got: short(JSON.stringify(ex.response.json)) }];
  },
};
