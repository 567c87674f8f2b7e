// Where outgoing mail puts the work and the events a state change causes: the store's one job
// queue (server/jobs) and event outbox (server/events), in the caller's transaction `tx`, so the
// change, its jobs and its events commit together or not at all. The compositions hand theirs.
import type { Sql } from "../db/sql.ts";
import type { EventType } from "../events/event-outbox.ts";
import type { EnqueueOptions } from "../jobs/job-queue.ts";

export interface MailOutbox {
  /** A job committed with tx; its id. */
  enqueue(tx: Sql, kind: string, payload: unknown, options?: EnqueueOptions): Promise<number>;
  /** Removes the jobs of a kind whose payload has `value` at jsonPath (`$.messageId`). */
  cancelWhere(tx: Sql, kind: string, jsonPath: string, value: string): Promise<number>;
  /** The event and its webhook deliveries, committed with tx. */
  emit(tx: Sql, projectId: string, type: EventType, data: Record<string, unknown>): Promise<unknown>;
}
