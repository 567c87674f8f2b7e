// The `maildomain.status_changed` event (decision O7, payload: spec/events/payloads.tsp): one per
// real change of a claim's status, emitted by the repositories in the transaction that writes the
// change, to the project whose claim it is. Its reason is the claim's own `statusReason`, the text
// GET shows that project, so an ended claim's event names no other project.
import type { ClaimStatus, ProofMethod } from "./claim-status.ts";

export const STATUS_CHANGED_EVENT = "maildomain.status_changed";

/** A claim as it stands after the change, and the status it had before. */
export interface StatusChange {
  id: string;
  projectId: string;
  name: string;
  status: ClaimStatus;
  previousStatus: ClaimStatus;
  verifiedBy: ProofMethod | null;
  statusReason: string | null;
  at: string;
}

/** The event's data: the same on both stores. */
export function statusChangedData(c: Omit<StatusChange, "projectId">): Record<string, unknown> {
  return {
    domainId: c.id,
    domain: c.name,
    status: c.status,
    previousStatus: c.previousStatus,
    ...(c.status === "verified" && c.verifiedBy ? { method: c.verifiedBy } : {}),
    ...(c.status !== "verified" && c.statusReason ? { reason: c.statusReason } : {}),
    at: c.at,
  };
}
