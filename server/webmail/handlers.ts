// POST /v1/webmail/login-link: a single-use link, valid 60 seconds, into a mailbox of the project.
import type { WebmailHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Clock } from "../jobs/clock.ts";
import { invalid, invalidFields } from "../http/errors.ts";
import type { MailboxRepository } from "../mailboxes/mailbox-repository.ts";
import { mailboxReleased } from "../mailboxes/released.ts";
import { readFrameAncestors } from "./frame-ancestors.ts";
import { LINK_TTL_SECONDS, newToken } from "./tokens.ts";
import type { WebmailRepository } from "./webmail-repository.ts";

export interface WebmailDeps {
  mailboxes: MailboxRepository;
  webmail: WebmailRepository;
  /** Base URL the browser reaches this server at. */
  publicUrl: () => string;
  /** The platform's clock, which tests move to see a link expire. */
  clock: Clock;
}

export function webmailHandlers(deps: WebmailDeps): WebmailHandlers<AuthContext> {
  return {
    async createWebmailLoginLink({ body, auth }) {
      const { origins, problems } = readFrameAncestors(body.frameAncestors, "body.frameAncestors");
      if (problems.length) throw invalidFields(problems);
      const mailbox = await deps.mailboxes.findByEmail(auth.projectId, body.mailbox, "mailbox");
      if (!mailbox) {
        // A group stores nothing (decision M8): say so, rather than that the address is unknown.
        const group = await deps.mailboxes.findByEmail(auth.projectId, body.mailbox, "group");
        if (group) throw invalid("body.mailbox", "is a group: groups have no webmail, since mail to a group is stored in its members' mailboxes; ask for a link into a member's mailbox");
        throw invalid("body.mailbox", "is not a mailbox of this project");
      }
      // Its domain's claim ended (O8): the address, and signing in as it, are no longer this project's.
      if (mailbox.releasedAt) throw mailboxReleased(mailbox, "body.mailbox");
      const { token, hash } = newToken("wl");
      await deps.webmail.createLink(hash, mailbox.id, deps.clock.now() + LINK_TTL_SECONDS * 1000, origins);
      return { url: `${deps.publicUrl()}/webmail/login?token=${token}`, email: mailbox.email, expiresIn: LINK_TTL_SECONDS };
    },
  };
}
