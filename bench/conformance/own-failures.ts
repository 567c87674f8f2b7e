// Hooks module for bench/contracts.ts: which answers say the suite itself got the request wrong.
// A case the suite called valid that the server refused by its own reading of the contract (Prism's
// request validation, security and routing errors; the fixture's validation) or that the fixture
// could not answer is the suite's own failure, not the implementation's.
import { caseIsValid } from "../../conformance/engine/case-arbitrary.ts";
import type { Exchange } from "../../conformance/engine/types.ts";

const own: Set<string> = ((globalThis as any).__benchOwnRequests ??= new Set<string>());

export const requestKey = (r: { method: string; url: string; body?: string }) => `${r.method} ${r.url} ${r.body ?? ""}`;

export function ownRequests(): Set<string> {
  return own;
}

/**
 * Prism's request violations. Where the operation documents a 400/422 (or 4XX), Prism answers
 * with that response, not its own problem type, and says why only in the `sl-violations` header
 * (seen on Redocly's museum and Discord): counting only the problem type missed those.
 */
function prismViolations(ex: Exchange): boolean {
  const header = ex.response.headers["sl-violations"];
  if (ex.response.status < 400 || !header) return false;
  try {
    const list = JSON.parse(header);
    return Array.isArray(list) && list.some((v) => v?.severity === "Error" || v?.severity === 0);
  } catch {
    return false;
  }
}

export function refusedByServer(ex: Exchange): boolean {
  const body: any = ex.response.json;
  if (typeof body?.type === "string" && body.type.startsWith("https://stoplight.io/prism/errors#")) return true;
  if (prismViolations(ex)) return true;
  return body?.code === "fixture_cannot_synthesize" || (ex.response.status === 400 && body?.code === "invalid_request");
}

export default {
  after: {
    "*": (ex: Exchange) => {
      // A case holding the server's own values (an id a create answered, used by the cleanup's
      // DELETE) is "positive" by origin, not by the suite's judgement: Prism's made-up id "string"
      // breaks Discord's snowflake pattern, and Prism then refuses its own id. Only cases the
      // suite's validator calls valid are the suite's claims.
      if (!ex.probe && ex.case.mode === "positive" && ex.keyRole === "default" && refusedByServer(ex) && caseIsValid(ex.operation, ex.case)) {
        own.add(requestKey(ex.request));
        // BENCH_SHOW=own: each of them on stderr, so the suite's mistakes can be read, not only counted.
        if (process.env.BENCH_SHOW?.split(",").includes("own")) console.error(JSON.stringify({ own: requestKey(ex.request), status: ex.response.status, headers: ex.request.headers, answer: ex.response.text.slice(0, 600), violations: ex.response.headers["sl-violations"]?.slice(0, 600) }));
      }
    },
  },
};
