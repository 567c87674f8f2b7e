// Transitional (issue 37): the job queue's enqueue/cancel and events.emit as synchronous SQLite
// calls, for the code not yet written on Sql that calls them inside a synchronous
// `transaction(db, ...)` or savepoint, where an awaited call would finish after the commit:
// mail-sending (sqlite-sent-message-repository, relay-jobs, sqlite-message-outcomes),
// maildomains (sqlite-maildomain-repository), inbound (received-event, delivery-writer-worker)
// and dlp (dlp-inspector's SQLite branch). The one queue and outbox are jobs/job-queue.ts and
// events/event-outbox.ts; this file goes with its last user.
import type { DatabaseSync } from "node:sqlite";
import { DELIVER_JOB, type EmittedEvent, type EventType } from "../events/event-outbox.ts";
import { newId } from "../ids.ts";
import type { Clock } from "../jobs/clock.ts";
import { JOBS_CHANNEL, type EnqueueOptions } from "../jobs/job-queue.ts";
import { storeOnSqlite } from "./sqlite-store.ts";
import { prepare } from "./statements.ts";

export class SyncJobQueue {
  private readonly db: DatabaseSync;
  readonly clock: Clock;

  constructor(db: DatabaseSync, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** JobQueue.enqueue, synchronously on the connection's open transaction; the workers wake after it commits. */
  enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}): number {
    const now = this.clock.now();
    const row = prepare(this.db, "INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id")
      .get(kind, JSON.stringify(payload), options.runAt ?? now, options.group ?? null, now) as { id: number };
    void storeOnSqlite(this.db).notify(JOBS_CHANNEL);
    return row.id;
  }

  /** JobQueue.cancelWhere, synchronously. */
  cancelWhere(kind: string, jsonPath: string, value: string | number): number {
    return Number(prepare(this.db, "DELETE FROM jobs WHERE kind = ? AND json_extract(payload, ?) = ?").run(kind, jsonPath, value).changes);
  }
}

export class SyncEventOutbox {
  private readonly db: DatabaseSync;
  private readonly clock: Clock;
  private readonly queue: SyncJobQueue;

  constructor(db: DatabaseSync, queue: SyncJobQueue, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.queue = queue;
  }

  /** EventOutbox.emit, synchronously, in a savepoint of the connection's open transaction. */
  emit(projectId: string, type: EventType, data: Record<string, unknown>): EmittedEvent {
    const id = newId("evt");
    const createdAt = new Date(this.clock.now()).toISOString();
    const body = JSON.stringify({ id, type, createdAt, data });
    this.db.exec("SAVEPOINT emit");
    try {
      prepare(this.db, "INSERT INTO events (id, project_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)").run(id, projectId, type, body, createdAt);
      const hooks = prepare(this.db, "SELECT id, url, events FROM webhooks WHERE project_id = ? AND active = 1 ORDER BY id").all(projectId) as unknown as { id: string; url: string; events: string }[];
      const deliveryIds: number[] = [];
      for (const hook of hooks) {
        if (!(JSON.parse(hook.events) as string[]).includes(type)) continue;
        const row = prepare(this.db,
          `INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, event_id)
           VALUES (?, ?, 'pending', 0, 0, ?, ?, ?, ?) RETURNING id`,
        ).get(hook.id, type, body, createdAt, createdAt, id) as { id: number };
        this.queue.enqueue(DELIVER_JOB, { deliveryId: row.id, webhookId: hook.id }, { group: new URL(hook.url).origin });
        deliveryIds.push(row.id);
      }
      this.db.exec("RELEASE emit");
      return { id, body, deliveryIds };
    } catch (error) {
      this.db.exec("ROLLBACK TO emit");
      this.db.exec("RELEASE emit");
      throw error;
    }
  }
}
