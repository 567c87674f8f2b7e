// A JSON body must be JSON and match the schema documented for its status and media type.
import type { Check } from "../engine/check-api.ts";
import { asDocumented, mediaMatches, mediaType, responseFor, short } from "../engine/response-spec.ts";
import { responseUnjudged } from "../engine/unjudged.ts";
import { validate } from "../engine/validator.ts";

export const responseSchemaConformance: Check = {
  name: "response_schema_conformance",
  title: "Response violates schema",
  severity: "high",
  stateless: true,
  response(_ctx, ex) {
    // A HEAD answer has no body (RFC 9110 9.3.2): the headers of a GET, nothing to deserialize.
    if (!asDocumented(ex) || ex.request.method === "HEAD") return null;
    const spec = responseFor(ex.operation, ex.response.status);
    if (!spec) return null;
    const unjudged = responseUnjudged(spec);
    if (unjudged) return { unvalidated: unjudged };
    const actual = mediaType(ex.response.headers["content-type"]) ?? "application/json";
    const entry = Object.entries(spec.content).find(([m]) => mediaMatches(m, actual) && /json/.test(m));
    if (!entry?.[1].schema) return null;
    if (!ex.response.isJson) {
      return [{ title: "JSON deserialization error", message: `[${ex.response.status}] body is not JSON: ${short(ex.response.text, 120)}`, expected: "JSON body", got: short(ex.response.text, 120) }];
    }
    const verdict = validate(entry[1].schema, ex.response.json);
    if (verdict.unvalidated) return { unvalidated: verdict.unvalidated };
    if (verdict.valid) return [];
    return [{ message: `[${ex.response.status}] ${verdict.errors.join("; ")}`, expected: "body matching the documented schema", got: short(JSON.stringify(ex.response.json)) }];
  },
};
