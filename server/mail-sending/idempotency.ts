// Decision E6: a send with an idempotencyKey answers, for 24 hours, the first response of that
// (project, key) when the body is the same, and a conflict when it is not; after 24 hours the key
// is free again. Both functions run inside the accept transaction, and priorSend first takes the
// key's lock: a duplicate racing on another instance waits for the first send's commit and then
// replays its response (the primary key is the last guard).
import type { Sql } from "../db/sql.ts";

export const IDEMPOTENCY_MS = 24 * 3_600_000;

export interface IdempotencyKey {
  key: string;
  bodyHash: string;
}

/** What an earlier send with the key decides: replay its response, conflict, or nothing (send anew). */
export async function priorSend(tx: Sql, projectId: string, idem: IdempotencyKey, now: number): Promise<{ kind: "replay"; response: unknown } | { kind: "conflict" } | undefined> {
  await tx.lock(`idempotency:${projectId}:${idem.key}`);
  const prior = await tx.get<{ body_hash: string; response: string; created_at: number }>(
    "SELECT body_hash, response, created_at FROM send_idempotency WHERE project_id = ? AND key = ?", [projectId, idem.key]);
  if (prior && Number(prior.created_at) > now - IDEMPOTENCY_MS) {
    return prior.body_hash === idem.bodyHash ? { kind: "replay", response: JSON.parse(prior.response) } : { kind: "conflict" };
  }
  // Expired: the key is free, and the next remember() takes its place.
  if (prior) await tx.run("DELETE FROM send_idempotency WHERE project_id = ? AND key = ?", [projectId, idem.key]);
  return undefined;
}

/** Stores the response of an accepted send under its key. */
export async function remember(tx: Sql, projectId: string, idem: IdempotencyKey, response: unknown, now: number): Promise<void> {
  await tx.run("INSERT INTO send_idempotency (project_id, key, body_hash, response, created_at) VALUES (?, ?, ?, ?, ?)",
    [projectId, idem.key, idem.bodyHash, JSON.stringify(response), now]);
}
