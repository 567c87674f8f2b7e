// What a domain claim's end does to the addresses on it (issue 41 item 3, decision O8); the write
// itself is MailboxRepository.releaseClaim, the one place that runs it. When a project's claim of
// a name ends (another project proved control, or the name now lies in a zone another project
// hosts here), in the transaction that ends it:
// - its mailboxes (personal and shared) are released: they keep their stored mail, readable to
//   the project through the API, but give up their address (`email` becomes the mailbox's own
//   id, the address moves to `released_email`, migration 204), so the UNIQUE (email) constraint
//   frees it for the new owner, and nothing that looks an address up (RCPT TO, delivery, webmail
//   links, group members) finds them again;
// - their webmail links and sessions end, and they leave every group (of any domain);
// - its groups are deleted: a group stores nothing (decision M8), it was only its address.
// A released mailbox stays released when the claim is reopened or proven again: the address may
// belong to someone else by then.
import { ApiError } from "../../generated/server/errors.ts";
import type { MailboxRecord } from "./mailbox-repository.ts";

/** The refusal of anything that needs a mailbox to hold its address (a webmail link, group membership). */
export function mailboxReleased(m: MailboxRecord, path: string): ApiError {
  const domain = m.email.slice(m.email.lastIndexOf("@") + 1);
  const message =
    `the mailbox ${m.email} was released on ${m.releasedAt}, when this project's claim of ${domain} ended: the address is no longer this project's ` +
    `(GET /v1/maildomains/${domain} says why); its stored mail stays readable through GET /v1/mailboxes/${m.id}/messages until the mailbox is deleted`;
  return new ApiError(409, "not_ready", message, { details: [{ path, message }] });
}
