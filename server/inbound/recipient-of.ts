// Who an address is, from its mailbox row (joined with its domain's claim) and whether some
// project owns the address's domain: the rule both stores' lookup() share (decision O1). Only a
// verified domain receives; a mailbox of a domain that lost its proof is `unverified`, unless
// another project owns the name by now (then the address is simply unknown there).
import type { ClaimStatus } from "../maildomains/maildomain-repository.ts";

export type Recipient =
  | { kind: "mailbox" | "group"; id: string; projectId: string; email: string }
  /** On a verified mail domain, but no such mailbox or group: 550 5.1.1. */
  | { kind: "unknown" }
  /** A mailbox or group whose domain is no longer verified (decision O1): 450, the owner may restore the proof. */
  | { kind: "unverified" }
  /** Not a domain any project owns here (a pending claim is not ownership): 550 relay denied. */
  | { kind: "foreign" };

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
