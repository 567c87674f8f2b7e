// A 5xx is never a correct answer to a request the client controls. No answer at all (a reset, a
// timeout, while the server still answers other requests) counts too: it is reported here, once,
// as "no response", never as a made-up status, and no other check judges that request.
import type { Check } from "../engine/check-api.ts";
import { short } from "../engine/response-spec.ts";

export const notAServerError: Check = {
  name: "not_a_server_error",
  title: "Server error",
  severity: "critical",
  stateless: true,
  response(_ctx, ex) {
    const { status, text, noResponse } = ex.response;
    if (noResponse !== undefined) return [{ title: "Server not answering", message: `no response (${noResponse}), while the server still answers other requests`, expected: "a response", got: "no response" }];
    if (status < 500) return [];
    // 501 that the operation itself documents is the server saying, as its contract promises, that
    // this deployment does not offer the operation (decision OP6), not a failure. Any other 5xx, and
    // a 501 documented only through `default` or `5XX`, stays one (Schemathesis fails every 5xx; its
    // configurable statuses for this check are the same idea, set by the contract here).
    if (status === 501 && ex.operation.responses.some((r) => r.status === "501")) return [];
    return [{ message: `[${status}] ${short(text)}`, expected: "status < 500", got: String(status) }];
  },
};
