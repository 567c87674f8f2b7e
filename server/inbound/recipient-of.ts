// Who an address is, from its mailbox row (joined with its domain's claim) and whether some
// project owns the address's domain: the rule both stores' lookup() share (decision O1). Only a
// verified domain receives; a mailbox of a domain that lost its proof is `unverified`, unless
// another project owns the name by now (then the address is simply unknown there).
import type { ClaimStatus } from "../maildomains/maildomain-repository.ts";
import type { Recipient } from "./delivery-repository.ts";

export interface MailboxRow {
  id: string;
  project_id: string;
  kind: "mailbox" | "group";
  email: string;
  status: ClaimStatus;
}

export function recipientOf(row: MailboxRow | undefined, domainOwned: () => boolean): Recipient {
  if (row?.status === "verified") return { kind: row.kind, id: row.id, projectId: row.project_id, email: row.email };
  if (domainOwned()) return { kind: "unknown" };
  return row ? { kind: "unverified" } : { kind: "foreign" };
}
