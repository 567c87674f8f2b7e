// Distribution groups and their members; members are mailboxes of the same project.
import type { GroupsHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { conflict, invalid, notFound, withinCap } from "../http/errors.ts";
import { createOnVerified, type MailboxDeps } from "../mailboxes/handlers.ts";
import { mailboxReleased } from "../mailboxes/released.ts";
import { notVerified } from "../maildomains/not-verified.ts";

export function groupHandlers(deps: MailboxDeps): GroupsHandlers<AuthContext> {
  async function group(projectId: string, id: string) {
    const g = await deps.mailboxes.get(projectId, id, "group");
    if (!g) throw notFound(`group ${id}`);
    return g;
  }

  return {
    async listGroups({ auth }) {
      const groups = await deps.mailboxes.list(auth.projectId, "group");
      return { groups: groups.map((g) => ({ id: g.id, email: g.email, membersCount: g.membersCount })) };
    },

    async createGroup({ body, auth }) {
      const domain = await deps.mailDomains.getByName(auth.projectId, body.domain);
      if (!domain) throw invalid("body.domain", "is not a mail domain of this project");
      // Addresses only on a domain the project owns (decision O1): a claim proves nothing yet.
      if (domain.status !== "verified") throw notVerified(domain, "body.domain");
      const created = await withinCap(
        createOnVerified(deps, domain, deps.mailboxes.create(
          { projectId: auth.projectId, domainId: domain.id, kind: "group", email: `${body.name}@${domain.name}`, passwordHash: null, description: body.description ?? null },
          deps.limits.groups,
        )),
        "groups",
      );
      if (!created) throw conflict(`the address ${body.name}@${domain.name} is already taken`);
      return { id: created.id, email: created.email };
    },

    async deleteGroup({ params, auth }) {
      if (!(await deps.mailboxes.delete(auth.projectId, params.id, "group"))) throw notFound(`group ${params.id}`);
      return { deleted: true };
    },

    async listGroupMembers({ params, auth }) {
      const g = await group(auth.projectId, params.id);
      const members = await deps.mailboxes.listMembers(g.id);
      return { members: members.map((m) => ({ id: m.id, email: m.email })) };
    },

    async addGroupMember({ params, body, auth }) {
      const g = await group(auth.projectId, params.id);
      const mailbox = await deps.mailboxes.findByEmail(auth.projectId, body.mailbox, "mailbox");
      if (!mailbox) throw invalid("body.mailbox", "is not a mailbox of this project");
      if (mailbox.releasedAt) throw mailboxReleased(mailbox, "body.mailbox");
      const added = await withinCap(deps.mailboxes.addMember(g.id, mailbox.id, deps.limits.membersPerGroup), "members in this group");
      if (!added) throw conflict(`${mailbox.email} is already a member`);
      return { ok: true, member: { id: mailbox.id, email: mailbox.email } };
    },

    async removeGroupMember({ params, auth }) {
      const g = await group(auth.projectId, params.id);
      if (!(await deps.mailboxes.removeMember(g.id, params.userId))) throw notFound(`member ${params.userId} of group ${g.id}`);
      return { ok: true };
    },
  };
}
