// GET, POST /v1/mail/suppressions and DELETE /v1/mail/suppressions/{id} (decisions SU1, SU2):
// the blocked addresses of the key's project. Another project's suppression answers 404 like a
// missing one.
import type { SuppressionsHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { invalid, notFound } from "../http/errors.ts";
import { isSandboxAddress, SANDBOX_DOMAIN } from "../mail-sending/sandbox/sandbox-recipients.ts";
import type { SuppressionRecord, SuppressionRepository } from "./suppression-repository.ts";

interface CreateSuppressionBody {
  address: string;
  stream?: "all" | "marketing";
  scope?: string;
}

const toApi = (s: SuppressionRecord) => ({
  id: s.id, address: s.address, reason: s.reason, stream: s.stream, scope: s.scope, messageId: s.messageId, detail: s.detail,
  createdAt: new Date(s.createdAt).toISOString(),
});

/** Why a manual block cannot be made, as the 400 names it; undefined when it can. */
export function blockProblem(address: string, stream: "all" | "marketing", scope: string): { path: string; message: string } | undefined {
  if (isSandboxAddress(address))
    return { path: "address", message: `addresses of ${SANDBOX_DOMAIN} are test recipients and are never suppressed (decision SU2): their local part fixes what they do` };
  if (stream === "all" && scope !== "")
    return { path: "scope", message: "a block of all streams is project-wide; a scope is only for stream marketing" };
  return undefined;
}

export function suppressionHandlers(deps: { suppressions: SuppressionRepository }): SuppressionsHandlers<AuthContext> {
  return {
    async listSuppressions({ query, auth }) {
      const list = await deps.suppressions.list(auth.projectId, {
        limit: query.limit ?? 50,
        before: query.before === undefined ? undefined : Number(query.before),
        address: query.address,
        reason: query.reason,
        stream: query.stream,
        scope: query.scope,
        since: query.since === undefined ? undefined : Date.parse(query.since),
      });
      return { suppressions: list.map(toApi) };
    },

    async createSuppression({ body: request, auth }) {
      // The contract's anyOf (no scope with `all`) makes the generated type a loose union; the
      // validator has checked the body against the whole schema already.
      const body = request as CreateSuppressionBody;
      const stream = body.stream ?? "all";
      const scope = body.scope ?? "";
      const problem = blockProblem(body.address, stream, scope);
      if (problem) throw invalid(`body.${problem.path}`, problem.message);
      return toApi(await deps.suppressions.add(auth.projectId, { address: body.address, stream, scope }));
    },

    async deleteSuppression({ params, auth }) {
      if (!(await deps.suppressions.remove(auth.projectId, Number(params.id)))) throw notFound(`suppression ${params.id}`);
      return { deleted: true };
    },
  };
}
