// A 5xx is never a correct answer to a request the client controls. A dropped connection counts
// too (reported as 599 by the client).
import type { Check } from "../engine/check-api.ts";
import { short } from "../engine/response-spec.ts";

export const notAServerError: Check = {
  name: "not_a_server_error",
  title: "Server error",
  severity: "critical",
  stateless: true,
  response(_ctx, ex) {
    const { status, text } = ex.response;
    if (status < 500) return [];
    return [{ message: status === 599 ? `connection failed: ${text}` : `[${status}] ${short(text)}`, expected: "status < 500", got: String(status) }];
  },
};
