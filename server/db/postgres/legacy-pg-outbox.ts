// Transitional (issue 37): the job queue's enqueue/cancel and events.emit on a raw PostgreSQL
// transaction client, for the code not yet written on Sql that runs its own `pg.tx` and so has no
// Store transaction to hand over: mail-sending (pg-sent-message-repository, pg-message-outcomes),
// maildomains (pg-maildomain-repository) and inbound (pg-services' mail.received). The one queue
// and outbox are jobs/job-queue.ts and events/event-outbox.ts; this file goes with its last user.
import { DELIVER_JOB, type EmittedEvent, type EventType } from "../../events/event-outbox.ts";
import { newId } from "../../ids.ts";
import type { Clock } from "../../jobs/clock.ts";
import { JOBS_CHANNEL, type EnqueueOptions } from "../../jobs/job-queue.ts";
import { rows, type Queryable } from "./pg.ts";

export class PgJobQueue {
  readonly clock: Clock;

  /** `_db` is not used: kept so the old constructor's callers need no change. */
  constructor(_db: unknown, clock: Clock) {
    this.clock = clock;
  }

  /** JobQueue.enqueue on the caller's transaction client `c`. */
  async enqueue(c: Queryable, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number> {
    const now = this.clock.now();
    const { rows: [row] } = await c.query<{ id: number }>({
      name: "legacy-jobs-enqueue",
      text: `WITH job AS (INSERT INTO jobs (kind, payload, run_at, group_key, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id)
        SELECT id, pg_notify($6, '') FROM job`,
      values: [kind, JSON.stringify(payload), options.runAt ?? now, options.group ?? null, now, JOBS_CHANNEL],
    });
    return row.id;
  }

  /** JobQueue.cancelWhere on `c` (`path` as `$.webhookId`). */
  async cancelWhere(c: Queryable, kind: string, path: string, value: string | number): Promise<number> {
    const r = await c.query("DELETE FROM jobs WHERE kind = $1 AND payload::jsonb #>> $2 = $3", [kind, `{${path.replace(/^\$\.?/, "").split(".").join(",")}}`, String(value)]);
    return r.rowCount ?? 0;
  }
}

export class PgEventOutbox {
  private readonly queue: PgJobQueue;
  private readonly clock: Clock;

  constructor(queue: PgJobQueue, clock: Clock) {
    this.queue = queue;
    this.clock = clock;
  }

  /** EventOutbox.emit on the caller's transaction client `c`, in a savepoint. */
  async emit(c: Queryable, projectId: string, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent> {
    const id = newId("evt");
    const createdAt = new Date(this.clock.now()).toISOString();
    const body = JSON.stringify({ id, type, createdAt, data });
    await c.query("SAVEPOINT emit");
    try {
      await c.query("INSERT INTO events (id, project_id, type, payload, created_at) VALUES ($1, $2, $3, $4, $5)", [id, projectId, type, body, createdAt]);
      const hooks = await rows<{ id: string; url: string; events: string }>(c, "SELECT id, url, events FROM webhooks WHERE project_id = $1 AND active ORDER BY id", [projectId]);
      const deliveryIds: number[] = [];
      for (const hook of hooks) {
        if (!(JSON.parse(hook.events) as string[]).includes(type)) continue;
        const [row] = await rows<{ id: number }>(c,
          `INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, event_id)
           VALUES ($1, $2, 'pending', 0, 0, $3, $4, $4, $5) RETURNING id`,
          [hook.id, type, body, createdAt, id],
        );
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
