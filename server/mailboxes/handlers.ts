// Mailboxes: create on a mail domain of the project, list (with groups), delete, shared on/off.
import type { SuccessBody } from "../../generated/server/handler-types.ts";
import type { ListMailboxesOperation, MailboxesHandlers } from "../../generated/server/handlers.ts";
import { immutableResponse } from "../../generated/server/serialization.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Limits } from "../config.ts";
import { conflict, invalid, notFound, withinCap } from "../http/errors.ts";
import type { MailDomainRecord, MailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { notVerified } from "../maildomains/not-verified.ts";
import { ClaimNotHeldError, type MailboxRecord, type MailboxRepository } from "./mailbox-repository.ts";
import { hashPassword } from "./password.ts";

export interface MailboxDeps {
  mailboxes: MailboxRepository;
  mailDomains: MailDomainRepository;
  limits: Limits;
}

/**
 * The create, refused with the domain's state when its claim stopped being verified between the
 * handler's check and the insert (the repository checks again in the insert's transaction, O8).
 */
export async function createOnVerified(deps: MailboxDeps, domain: MailDomainRecord, create: Promise<MailboxRecord | undefined>): Promise<MailboxRecord | undefined> {
  try {
    return await create;
  } catch (error) {
    if (!(error instanceof ClaimNotHeldError)) throw error;
    throw notVerified((await deps.mailDomains.getById(domain.id)) ?? domain, "body.domain");
  }
}

export function mailboxType(m: MailboxRecord): "personal" | "shared" | "group" {
  if (m.kind === "group") return "group";
  return m.shared ? "shared" : "personal";
}

type MailboxList = SuccessBody<ListMailboxesOperation>;

export function mailboxHandlers(deps: MailboxDeps): MailboxesHandlers<AuthContext> {
  // The answer for each cached (frozen) list, made once: the list is a new array whenever it may
  // have changed (CachedMailboxRepository), and the immutable answer's JSON is then written
  // without being built again (generated/server/serialization.ts).
  const answers = new WeakMap<readonly MailboxRecord[], MailboxList>();
  function answer(all: readonly MailboxRecord[]): MailboxList {
    return {
      mailboxes: all.map((m) =>
        m.kind === "group"
          ? { id: m.id, email: m.email, type: "group" as const, membersCount: m.membersCount }
          : { id: m.id, email: m.email, type: mailboxType(m), usedBytes: m.usedBytes, ...(m.releasedAt ? { releasedAt: m.releasedAt } : {}) },
      ),
    };
  }

  return {
    async createMailbox({ body, auth }) {
      const domain = await deps.mailDomains.getByName(auth.projectId, body.domain);
      if (!domain) throw invalid("body.domain", "is not a mail domain of this project");
      // Addresses only on a domain the project owns (decision O1): a claim proves nothing yet.
      if (domain.status !== "verified") throw notVerified(domain, "body.domain");
      const passwordHash = await hashPassword(body.password);
      const created = await withinCap(
        createOnVerified(deps, domain, deps.mailboxes.create(
          { projectId: auth.projectId, domainId: domain.id, kind: "mailbox", email: `${body.name}@${domain.name}`, passwordHash, description: body.description ?? null },
          deps.limits.mailboxes,
        )),
        "mailboxes",
      );
      if (!created) throw conflict(`the address ${body.name}@${domain.name} is already taken`);
      return { email: created.email, id: created.id };
    },

    async listMailboxes({ auth }) {
      const all = await deps.mailboxes.list(auth.projectId);
      if (!Object.isFrozen(all)) return answer(all);
      let body = answers.get(all);
      if (!body) {
        body = immutableResponse(answer(all));
        answers.set(all, body);
      }
      return body;
    },

    async deleteMailbox({ params, auth }) {
      if (!(await deps.mailboxes.delete(auth.projectId, params.id, "mailbox"))) throw notFound(`mailbox ${params.id}`);
      return { deleted: true };
    },

    async setMailboxShared({ params, body, auth }) {
      if (!(await deps.mailboxes.setShared(auth.projectId, params.id, body.shared))) throw notFound(`mailbox ${params.id}`);
      return { id: params.id, shared: body.shared };
    },
  };
}
