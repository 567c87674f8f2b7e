// events.emit on PostgreSQL (decision P1): event-outbox.ts's outbox on the caller's transaction
// client, so the event, its deliveries and their jobs commit with the state change that caused
// them, or not at all. The body is serialized once and stored as TEXT, byte for byte what is
// signed and sent.
import { rows, type Queryable } from "../db/postgres/pg.ts";
import { newId } from "../ids.ts";
import type { Clock } from "../jobs/clock.ts";
import type { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { DELIVER_JOB, type EmittedEvent, type EventType } from "./event-outbox.ts";

interface HookRow {
  id: string;
  url: string;
  events: string;
}

export class PgEventOutbox {
  private readonly queue: PgJobQueue;
  private readonly clock: Clock;

  constructor(queue: PgJobQueue, clock: Clock) {
    this.queue = queue;
    this.clock = clock;
  }

  /**
   * Records the event and schedules one delivery per active subscription of the project that
   * selected `type`, on the caller's transaction `c` (a savepoint keeps a failure here from
   * leaving half an event in it).
   */
  async emit(c: Queryable, projectId: string, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent> {
    const id = newId("evt");
    const createdAt = new Date(this.clock.now()).toISOString();
    const body = JSON.stringify({ id, type, createdAt, data });
    await c.query("SAVEPOINT emit");
    try {
      await c.query("INSERT INTO events (id, project_id, type, payload, created_at) VALUES ($1, $2, $3, $4, $5)", [id, projectId, type, body, createdAt]);
      const hooks = await rows<HookRow>(c, "SELECT id, url, events FROM webhooks WHERE project_id = $1 AND active ORDER BY id", [projectId]);
      const deliveryIds: number[] = [];
      for (const hook of hooks) {
        if (!(JSON.parse(hook.events) as string[]).includes(type)) continue;
        const [row] = await rows<{ id: number }>(c,
          `INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, event_id)
           VALUES ($1, $2, 'pending', 0, 0, $3, $4, $4, $5) RETURNING id`,
          [hook.id, type, body, createdAt, id],
        );
        // One group per receiving origin: a slow receiver holds its own slots, not everyone's.
        await this.queue.enqueue(c, DELIVER_JOB, { deliveryId: row.id, webhookId: hook.id }, { group: new URL(hook.url).origin });
        deliveryIds.push(row.id);
      }
      await c.query("RELEASE emit");
      return { id, body, deliveryIds };
    } catch (error) {
      await c.query("ROLLBACK TO emit");
      await c.query("RELEASE emit");
      throw error;
    }
  }
}
