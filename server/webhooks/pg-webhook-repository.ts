// Webhook subscriptions and their delivery log on PostgreSQL (decision P1): the behaviour of
// sqlite-webhook-repository.ts, checked by the shared suite in webhook-repository.contract.ts.
// The tables are created by webhooks/migrations.ts (version 107).
import { rows, type Pg } from "../db/postgres/pg.ts";
import { insertWithinCap } from "../db/postgres/capped-insert.ts";
import { DELIVER_JOB } from "../events/event-outbox.ts";
import { newId, nowIso } from "../ids.ts";
import type { PgJobQueue } from "../jobs/pg-job-queue.ts";
import type { DeliveryRecord, WebhookRecord, WebhookRepository } from "./webhook-repository.ts";

export interface PgHookRow {
  id: string;
  project_id: string;
  url: string;
  events: string;
  secret_enc: string;
  active: boolean;
  created_at: string;
}

export interface PgDeliveryRow {
  id: number;
  webhook_id: string;
  event: string;
  status: DeliveryRecord["status"];
  http_code: number;
  attempts: number;
  payload: string;
  created_at: string;
  next_attempt_at: string | null;
}

export const toHook = (r: PgHookRow): WebhookRecord => ({
  id: r.id, projectId: r.project_id, url: r.url, events: JSON.parse(r.events), secretSealed: r.secret_enc, active: r.active, createdAt: r.created_at,
});

export const toDelivery = (r: PgDeliveryRow): DeliveryRecord => ({
  id: r.id, webhookId: r.webhook_id, event: r.event, status: r.status, httpCode: r.http_code, attempts: r.attempts,
  payload: r.payload, createdAt: r.created_at, nextAttemptAt: r.next_attempt_at,
});

export const HOOK_COLUMNS = "id, project_id, url, events, secret_enc, active, created_at";
export const DELIVERY_COLUMNS = "id, webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at";

export class PgWebhookRepository implements WebhookRepository {
  private readonly db: Pg;
  private readonly jobs: PgJobQueue;
  constructor(db: Pg, jobs: PgJobQueue) {
    this.db = db;
    this.jobs = jobs;
  }

  async create(w: Omit<WebhookRecord, "id" | "createdAt" | "active">, cap?: number): Promise<WebhookRecord> {
    const [row] = await insertWithinCap(this.db, `webhooks:${w.projectId}`, cap,
      async (c) => (await rows<{ n: number }>(c, "SELECT COUNT(*)::int AS n FROM webhooks WHERE project_id = $1", [w.projectId]))[0].n,
      (c) => rows<PgHookRow>(c, `INSERT INTO webhooks (id, project_id, url, events, secret_enc, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${HOOK_COLUMNS}`,
        [newId("whk"), w.projectId, w.url, JSON.stringify(w.events), w.secretSealed, nowIso()]),
    );
    return toHook(row);
  }

  async list(projectId: string): Promise<WebhookRecord[]> {
    return (await this.db.query<PgHookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE project_id = $1 ORDER BY created_at, id`, [projectId])).map(toHook);
  }

  async get(projectId: string, id: string): Promise<WebhookRecord | undefined> {
    const [row] = await this.db.query<PgHookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return row && toHook(row);
  }

  delete(projectId: string, id: string): Promise<boolean> {
    // The subscription, its delivery log (ON DELETE CASCADE) and its waiting jobs go together:
    // nothing more is sent to a URL its owner unsubscribed. A job another instance is running
    // now finds its delivery gone when it records (or reloads), and does nothing.
    return this.db.tx(async (c) => {
      const r = await c.query("DELETE FROM webhooks WHERE project_id = $1 AND id = $2", [projectId, id]);
      if (!r.rowCount) return false;
      await this.jobs.cancelWhere(c, DELIVER_JOB, "$.webhookId", id);
      return true;
    });
  }

  async listDeliveries(webhookId: string, limit: number, before = Number.MAX_SAFE_INTEGER): Promise<DeliveryRecord[]> {
    return (await this.db.query<PgDeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, [webhookId, before, limit])).map(toDelivery);
  }

  async getDelivery(webhookId: string, id: number): Promise<DeliveryRecord | undefined> {
    // An id that is no BIGINT (a path segment like "abc" or 1e30) names no delivery, as on SQLite.
    if (!Number.isSafeInteger(id)) return undefined;
    const [row] = await this.db.query<PgDeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`, [webhookId, id]);
    return row && toDelivery(row);
  }
}
