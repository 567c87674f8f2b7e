// GET /v1/mail/policy (decision S2) and GET /v1/mail/dlp-events (decision S3).
import type { MailSendingHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { notFound } from "../http/errors.ts";
import type { DlpRepository } from "./dlp-repository.ts";

export function dlpHandlers(deps: { dlp: DlpRepository }): Pick<MailSendingHandlers<AuthContext>, "getMailPolicy" | "listDlpEvents"> {
  return {
    async getMailPolicy({ auth }) {
      const policy = await deps.dlp.policy(auth.projectId);
      if (!policy) throw notFound(`project ${auth.projectId}`);
      return policy;
    },

    async listDlpEvents({ query, auth }) {
      const limit = query.limit ?? 50;
      const offset = query.offset ?? 0;
      // Stored times are ISO strings of one form, so "strictly after" compares as text.
      const since = query.since ? new Date(query.since).toISOString() : undefined;
      const { events, total } = await deps.dlp.list(auth.projectId, { limit, offset, since });
      return { events, total, offset, limit, hasMore: offset + events.length < total };
    },
  };
}
