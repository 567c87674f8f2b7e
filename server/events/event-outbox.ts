// events.emit: the one way an area reports something that happened (seed §6, decision W1),
// written once for both stores (db/sql.ts). The envelope is serialized once; that exact text is
// stored, signed and sent on every attempt, so the body in the delivery log is byte-identical to
// what receivers verify. Emitting runs on the caller's transaction: the event, its deliveries and
// their jobs commit with the state change that caused them, or not at all.
import type { Sql } from "../db/sql.ts";
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
  private readonly queue: JobQueue;
  private readonly clock: Clock;

  constructor(queue: JobQueue, clock: Clock) {
    this.queue = queue;
    this.clock = clock;
  }

  /**
   * Records the event and schedules one delivery per active subscription of the project that
   * selected `type`, on the caller's transaction `tx`. Atomic on its own (a savepoint keeps a
   * failure here from leaving half an event in the caller's transaction).
   */
  emit(tx: Sql, projectId: string, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent> {
    const id = newId("evt");
    const createdAt = new Date(this.clock.now()).toISOString();
    const body = JSON.stringify({ id, type, createdAt, data });
    return tx.transaction(async (sp) => {
      await sp.run("INSERT INTO events (id, project_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)", [id, projectId, type, body, createdAt]);
      const hooks = await sp.all<HookRow>("SELECT id, url, events FROM webhooks WHERE project_id = ? AND active = ? ORDER BY id", [projectId, true]);
      const deliveryIds: number[] = [];
      for (const hook of hooks) {
        if (!(JSON.parse(hook.events) as string[]).includes(type)) continue;
        const row = await sp.get<{ id: number }>(
          `INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, event_id)
           VALUES (?, ?, 'pending', 0, 0, ?, ?, ?, ?) RETURNING id`,
          [hook.id, type, body, createdAt, createdAt, id],
        );
        // One group per receiving origin: a slow receiver holds its own slots, not everyone's.
        await this.queue.enqueue(sp, DELIVER_JOB, { deliveryId: row!.id, webhookId: hook.id }, { group: new URL(hook.url).origin });
        deliveryIds.push(row!.id);
      }
      return { id, body, deliveryIds };
    });
  }
}
