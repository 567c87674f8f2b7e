import type { DatabaseSync } from "node:sqlite";
import { insertWithinCap } from "../db/capped-insert.ts";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";
import { DELIVER_JOB } from "../events/event-outbox.ts";
import { newId, nowIso } from "../ids.ts";
import type { JobQueue } from "../jobs/job-queue.ts";
import type { DeliveryRecord, WebhookRecord, WebhookRepository } from "./webhook-repository.ts";

export interface HookRow {
  id: string;
  project_id: string;
  url: string;
  events: string;
  secret_enc: string;
  active: number;
  created_at: string;
}

export interface DeliveryRow {
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

export const toHook = (r: HookRow): WebhookRecord => ({
  id: r.id, projectId: r.project_id, url: r.url, events: JSON.parse(r.events), secretSealed: r.secret_enc, active: r.active === 1, createdAt: r.created_at,
});

export const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id, webhookId: r.webhook_id, event: r.event, status: r.status, httpCode: r.http_code, attempts: r.attempts,
  payload: r.payload, createdAt: r.created_at, nextAttemptAt: r.next_attempt_at,
});

export class SqliteWebhookRepository implements WebhookRepository {
  private readonly db: DatabaseSync;
  private readonly jobs: JobQueue;
  constructor(db: DatabaseSync, jobs: JobQueue) {
    this.db = db;
    this.jobs = jobs;
  }

  async create(w: Omit<WebhookRecord, "id" | "createdAt" | "active">, cap?: number): Promise<WebhookRecord> {
    const id = newId("whk");
    const count = () => (prepare(this.db, "SELECT COUNT(*) AS n FROM webhooks WHERE project_id = ?").get(w.projectId) as { n: number }).n;
    insertWithinCap(this.db, cap, count, () =>
      prepare(this.db, "INSERT INTO webhooks (id, project_id, url, events, secret_enc, created_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(id, w.projectId, w.url, JSON.stringify(w.events), w.secretSealed, nowIso()),
    );
    return (await this.get(w.projectId, id))!;
  }

  async list(projectId: string): Promise<WebhookRecord[]> {
    return (prepare(this.db, "SELECT * FROM webhooks WHERE project_id = ? ORDER BY created_at, id").all(projectId) as unknown as HookRow[]).map(toHook);
  }

  async get(projectId: string, id: string): Promise<WebhookRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM webhooks WHERE project_id = ? AND id = ?").get(projectId, id);
    return row ? toHook(row as unknown as HookRow) : undefined;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    // The subscription, its delivery log (ON DELETE CASCADE) and its waiting jobs go together:
    // nothing more is sent to a URL its owner unsubscribed.
    return transaction(this.db, () => {
      const gone = Number(prepare(this.db, "DELETE FROM webhooks WHERE project_id = ? AND id = ?").run(projectId, id).changes) > 0;
      if (gone) this.jobs.cancelWhere(DELIVER_JOB, "$.webhookId", id);
      return gone;
    });
  }

  async listDeliveries(webhookId: string, limit: number, before = Number.MAX_SAFE_INTEGER): Promise<DeliveryRecord[]> {
    const rows = prepare(this.db, "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?").all(webhookId, before, limit);
    return (rows as unknown as DeliveryRow[]).map(toDelivery);
  }

  async getDelivery(webhookId: string, id: number): Promise<DeliveryRecord | undefined> {
    const row = prepare(this.db, "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id = ?").get(webhookId, id);
    return row ? toDelivery(row as unknown as DeliveryRow) : undefined;
  }
}
