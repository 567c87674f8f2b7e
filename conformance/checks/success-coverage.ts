// A run that never saw an operation succeed has not tested it: every case may have been refused
// for reasons the suite itself caused (a name already taken, a cap its own traffic filled). An
// operation whose documented 2xx never came back is reported: a failure under --strict-coverage
// (on in conformance:reference and in npm test), a warning otherwise, as Schemathesis warns when
// all responses were 4xx. An operation that got no request at all (its cases could not be drawn,
// its body cannot be written) was not tested either, whatever it documents: said the same way.
import type { Check } from "../engine/check-api.ts";
import { documentedStatuses } from "../engine/response-spec.ts";

export const successCoverage: Check = {
  name: "success_coverage",
  title: "Success path never reached",
  severity: "high",
  stateless: true,
  strictOnly: true,
  final(_ctx, op, seen) {
    const documented = documentedStatuses(op).filter((s) => s.startsWith("2"));
    if (!seen.cases) return [{ title: "Operation never tested", message: "no request was sent to this operation (see the warnings above for why)", expected: "at least one request", got: "none" }];
    if (!documented.length) return null;
    const reached = [...seen.statuses.keys()].some((s) => documented.some((d) => d === String(s) || (d === "2XX" && s >= 200 && s < 300)));
    if (reached) return [];
    const statuses = [...seen.statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}x${n}`).join(", ");
    return [{ message: `no documented ${documented.join("/")} in ${seen.cases} requests (answers: ${statuses})`, expected: documented.join(" or "), got: statuses }];
  },
};
