// Mailbox reading lands with mail reception (a later issue). Until then an existing mailbox
// answers 501 not_implemented, but an unknown or deleted one answers 404 like everywhere else,
// so clients and the conformance suite see the same resource rules on every mailbox path.
import type { MailboxReadingHandlers } from "../../generated/server/handlers.ts";
import { ApiError } from "../../generated/server/errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { notFound } from "../http/errors.ts";
import type { MailboxRepository } from "../mailboxes/mailbox-repository.ts";

export function mailboxReadingHandlers(deps: { mailboxes: MailboxRepository }): MailboxReadingHandlers<AuthContext> {
  async function notYet(projectId: string, id: string, operation: string): Promise<never> {
    if (!(await deps.mailboxes.get(projectId, id, "mailbox"))) throw notFound(`mailbox ${id}`);
    throw new ApiError(501, "not_implemented", `${operation} is not implemented by this server yet`);
  }
  return {
    listMailboxMessages: ({ params, auth }) => notYet(auth.projectId, params.id, "listMailboxMessages"),
    getMailboxMessage: ({ params, auth }) => notYet(auth.projectId, params.id, "getMailboxMessage"),
    findMailboxMessage: ({ params, auth }) => notYet(auth.projectId, params.id, "findMailboxMessage"),
  };
}
