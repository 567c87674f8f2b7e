// A request the schema allows must not be refused as invalid. 401/403/404/429 are always fair
// answers (auth, existence, limits), and so is any other 4xx the operation documents as a business
// outcome, except 400, which says "your input is malformed" and contradicts the schema.
import type { Check } from "../engine/check-api.ts";
import { judgesData, responseFor, short } from "../engine/response-spec.ts";
import { requestUnjudged } from "../engine/unjudged.ts";

const ALWAYS_FAIR = new Set([401, 403, 404, 429]);

export const positiveDataAcceptance: Check = {
  name: "positive_data_acceptance",
  title: "API rejected schema-compliant request",
  severity: "high",
  stateless: false,
  response(ctx, ex) {
    if (!judgesData(ex) || ex.case.mode !== "positive") return null;
    const status = ex.response.status;
    if (status < 400 || status >= 500 || ALWAYS_FAIR.has(status)) return [];
    if (ctx.config.operations[ex.operation.id]?.acceptStatuses?.includes(status)) return [];
    const documented = responseFor(ex.operation, status);
    if (status !== 400 && documented && documented.status !== "DEFAULT" && !/XX$/.test(documented.status)) return [];
    // The case was called valid by schemas ajv could not compile: it may not be, so no verdict.
    const unjudged = requestUnjudged(ex.operation);
    if (unjudged) return { unvalidated: unjudged };
    return [{ message: `valid input refused with ${status}: ${short(ex.response.text, 200)}`, expected: "2xx (or 401/403/404)", got: String(status) }];
  },
};
