// A request that breaks the schema (one constraint at a time) must be refused with a 4xx.
import type { Check } from "../engine/check-api.ts";
import { judgesData } from "../engine/response-spec.ts";
import { requestUnjudged } from "../engine/unjudged.ts";

export const negativeDataRejection: Check = {
  name: "negative_data_rejection",
  title: "API accepted schema-violating request",
  severity: "high",
  stateless: false,
  response(_ctx, ex) {
    if (!judgesData(ex)) return null;
    // Which cases are invalid is not known when a request schema could not be resolved or compiled.
    const unjudged = requestUnjudged(ex.operation);
    if (unjudged) return { unvalidated: unjudged };
    if (ex.case.mode !== "negative") return null;
    if (ex.response.status >= 400) return [];
    return [{ message: `invalid input accepted (${ex.case.mutation})`, expected: "4xx", got: String(ex.response.status) }];
  },
};
