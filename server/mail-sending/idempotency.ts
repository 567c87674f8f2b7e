// Decision E6: a send with an idempotencyKey answers, for 24 hours, the first response of that
// (project, key) when the body is the same, and a conflict when it is not; after 24 hours the key
// is free again. Both functions run inside the accept transaction, so the check and the insert
// cannot interleave with a concurrent send of the same key (the primary key guards the rest).
import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";

export const IDEMPOTENCY_MS = 24 * 3_600_000;

export interface IdempotencyKey {
  key: string;
  bodyHash: string;
}

/** What an earlier send with the key decides: replay its response, conflict, or nothing (send anew). */
export function priorSend(db: DatabaseSync, projectId: string, idem: IdempotencyKey, now: number): { kind: "replay"; response: unknown } | { kind: "conflict" } | undefined {
  const prior = prepare(db, "SELECT body_hash, response, created_at FROM send_idempotency WHERE project_id = ? AND key = ?")
    .get(projectId, idem.key) as { body_hash: string; response: string; created_at: number } | undefined;
  if (prior && prior.created_at > now - IDEMPOTENCY_MS) {
    return prior.body_hash === idem.bodyHash ? { kind: "replay", response: JSON.parse(prior.response) } : { kind: "conflict" };
  }
  // Expired: the key is free, and the next remember() takes its place.
  if (prior) prepare(db, "DELETE FROM send_idempotency WHERE project_id = ? AND key = ?").run(projectId, idem.key);
  return undefined;
}

/** Stores the response of an accepted send under its key. */
export function remember(db: DatabaseSync, projectId: string, idem: IdempotencyKey, response: unknown, now: number): void {
  prepare(db, "INSERT INTO send_idempotency (project_id, key, body_hash, response, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(projectId, idem.key, idem.bodyHash, JSON.stringify(response), now);
}
