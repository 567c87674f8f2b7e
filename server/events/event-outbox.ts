// events.emit: the one way an area reports something that happened (seed §6, decision W1).
// The envelope is serialized once; that exact text is stored, signed and sent on every attempt,
// so the body in the delivery log is byte-identical to what receivers verify. Emitting is
// synchronous SQL: inside the caller's transaction(db, ...) the event, its deliveries and their
// jobs commit with the state change that caused them, or not at all.
import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import { newId } from "../ids.ts";
import type { Clock } from "../jobs/clock.ts";
import type { JobQueue } from "../jobs/job-queue.ts";

export const EVENT_TYPES = [
  "mail.received", "mail.delivered", "mail.bounced", "mail.complained", "mail.opened", "mail.clicked", "mail.dlp", "maildomain.status_changed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The job kind the webhook delivery engine handles; its payload is `{ deliveryId, webhookId }`
 * (the subscription's id lets deleting or deactivating it cancel its jobs in one statement).
 */
export const DELIVER_JOB = "webhook.deliver";

export interface EmittedEvent {
  id: string;
  /** The exact body every subscriber receives. */
  body: string;
  deliveryIds: number[];
}

interface HookRow {
  id: string;
  url: string;
  events: string;
}

export class EventOutbox {
  private readonly db: DatabaseSync;
  private readonly queue: JobQueue;
  private readonly clock: Clock;

  constructor(db: DatabaseSync, queue: JobQueue, clock: Clock) {
    this.db = db;
    this.queue = queue;
    this.clock = clock;
  }

  /**
   * Records the event and schedules one delivery per active subscription of the project that
   * selected `type`. Atomic on its own (a savepoint), and part of the caller's transaction when
   * called inside one.
   */
  emit(projectId: string, type: EventType, data: Record<string, unknown>): EmittedEvent {
    const id = newId("evt");
    const createdAt = new Date(this.clock.now()).toISOString();
    const body = JSON.stringify({ id, type, createdAt, data });
    this.db.exec("SAVEPOINT emit");
    try {
      prepare(this.db, "INSERT INTO events (id, project_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)").run(id, projectId, type, body, createdAt);
      const hooks = prepare(this.db, "SELECT id, url, events FROM webhooks WHERE project_id = ? AND active = 1").all(projectId) as unknown as HookRow[];
      const deliveryIds: number[] = [];
      for (const hook of hooks) {
        if (!(JSON.parse(hook.events) as string[]).includes(type)) continue;
        const row = prepare(this.db,
          `INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, event_id)
           VALUES (?, ?, 'pending', 0, 0, ?, ?, ?, ?) RETURNING id`,
        ).get(hook.id, type, body, createdAt, createdAt, id) as { id: number };
        // One group per receiving origin: a slow receiver holds its own slots, not everyone's.
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
