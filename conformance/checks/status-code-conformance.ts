// Every status the server answers must be documented for the operation (exact, NXX or default).
import type { Check } from "../engine/check-api.ts";
import { asDocumented, documentedStatuses, responseFor } from "../engine/response-spec.ts";

export const statusCodeConformance: Check = {
  name: "status_code_conformance",
  title: "Undocumented HTTP status code",
  severity: "medium",
  stateless: true,
  response(_ctx, ex) {
    if (!asDocumented(ex)) return null;
    if (responseFor(ex.operation, ex.response.status)) return [];
    const documented = documentedStatuses(ex.operation).join(", ");
    return [{ message: `received ${ex.response.status}; documented: ${documented}`, expected: documented, got: String(ex.response.status) }];
  },
};
