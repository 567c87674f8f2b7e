// The Content-Type of a response with a body must be one the contract documents for its status.
import type { Check } from "../engine/check-api.ts";
import { asDocumented, mediaMatches, mediaType, responseFor } from "../engine/response-spec.ts";
import { responseUnjudged } from "../engine/unjudged.ts";

export const contentTypeConformance: Check = {
  name: "content_type_conformance",
  title: "Undocumented Content-Type",
  severity: "medium",
  stateless: true,
  response(_ctx, ex) {
    if (!asDocumented(ex)) return null;
    const spec = responseFor(ex.operation, ex.response.status);
    const unjudged = responseUnjudged(spec);
    if (unjudged) return { unvalidated: unjudged };
    const documented = Object.keys(spec?.content ?? {});
    if (!spec || !documented.length) return null;
    const actual = mediaType(ex.response.headers["content-type"]);
    if (!actual) {
      if (!ex.response.text.length) return [];
      return [{ title: "Missing Content-Type header", message: "the response has a body but no Content-Type", expected: documented.join(" or "), got: "(none)" }];
    }
    if (documented.some((d) => mediaMatches(d, actual))) return [];
    return [{ message: `Content-Type ${actual} is not documented for ${ex.response.status}`, expected: documented.join(" or "), got: actual }];
  },
};
