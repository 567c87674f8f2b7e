// What a domain claim's end does to the addresses on it (issue 41 item 3, decision O8); the write
// itself is releaseAddresses below, run only by MailboxRepository.releaseClaim. When a project's claim of
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
import type { Sql } from "../db/sql.ts";

/**
 * Releases what the claim `claimId` holds, in `tx` (the transaction that ends the claim); true when
 * a mailbox or group changed, so the caller tells the caches. Mailboxes released earlier (of an
 * earlier end of the same claim) keep their first release.
 */
export async function releaseAddresses(tx: Sql, claimId: string, at: string): Promise<boolean> {
  const held = `SELECT id FROM mailboxes WHERE domain_id = ? AND released_at IS NULL`;
  await tx.run(`DELETE FROM webmail_links WHERE mailbox_id IN (${held})`, [claimId]);
  await tx.run(`DELETE FROM webmail_sessions WHERE mailbox_id IN (${held})`, [claimId]);
  await tx.run(`DELETE FROM group_members WHERE mailbox_id IN (${held})`, [claimId]);
  const groups = await tx.run("DELETE FROM mailboxes WHERE domain_id = ? AND kind = 'group'", [claimId]);
  const boxes = await tx.run(
    "UPDATE mailboxes SET released_at = ?, released_email = email, email = id WHERE domain_id = ? AND kind = 'mailbox' AND released_at IS NULL",
    [at, claimId],
  );
  return groups.changes > 0 || boxes.changes > 0;
}

/** The refusal of anything that needs a mailbox to hold its address (a webmail link, group membership). */
// The fields it names, not the repository's record: the repository imports this file (releaseAddresses).
export function mailboxReleased(m: { id: string; email: string; releasedAt: string | null }, path: string): ApiError {
  const domain = m.email.slice(m.email.lastIndexOf("@") + 1);
  const message =
    `the mailbox ${m.email} was released on ${m.releasedAt}, when this project's claim of ${domain} ended: the address is no longer this project's ` +
    `(GET /v1/maildomains/${domain} says why); its stored mail stays readable through GET /v1/mailboxes/${m.id}/messages until the mailbox is deleted`;
  return new ApiError(409, "not_ready", message, { details: [{ path, message }] });
}
