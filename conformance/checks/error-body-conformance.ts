// An error answer carries the body its operation documents for that status (the exact code, its
// `4XX` range or its `default`), and nothing else judges it: one operation's 404 body is not a rule
// for another's errors, nor for a 405 the contract never describes (engine/error-schema.ts). Where
// the config names the API's one error body (`errorSchema`), it also judges the answers the
// operation does not document: the router's 405s and 404s, the probes' 401/403/429.
import type { Check } from "../engine/check-api.ts";
import { documentedErrorSchema } from "../engine/error-schema.ts";
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
    if (status < 400 || ex.response.noResponse !== undefined || ex.request.method === "HEAD") return null;
    // A method the operation does not have is not answered by the operation: only the API-wide rule.
    const own = ex.probe === "unsupported_method" ? undefined : documentedErrorSchema(ex.operation, status);
    const schema = own ?? ctx.errorSchema;
    if (schema === undefined) return null;
    const source = own ? `the schema ${ex.operation.id} documents for ${status}` : "the config's errorSchema";
    if (!ex.response.isJson) return [{ message: `[${status}] error body is not JSON (judged by ${source}): ${short(ex.response.text, 120)}`, expected: "JSON error body", got: short(ex.response.text, 120) }];
    const verdict = validate(schema, ex.response.json);
    if (verdict.unvalidated) return { unvalidated: verdict.unvalidated };
    if (verdict.valid) return [];
    return [{ message: `[${status}] ${verdict.errors.join("; ")} (judged by ${source})`, expected: "the contract's error body", got: short(JSON.stringify(ex.response.json)) }];
  },
};
