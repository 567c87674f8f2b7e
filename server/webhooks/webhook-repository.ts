// The storage boundary of webhook subscriptions and their delivery log, and its one
// implementation on the store (db/sql.ts). The tables are created with the event outbox's.
import { insertWithinCap } from "../db/capped-insert.ts";
import { bool, type Store } from "../db/sql.ts";
import { DELIVER_JOB } from "../events/event-outbox.ts";
import { newId, nowIso } from "../ids.ts";
import type { JobQueue } from "../jobs/job-queue.ts";

export interface WebhookRecord {
  id: string;
  projectId: string;
  url: string;
  events: string[];
  /** The `whsec_` secret, sealed with the server key (SecretBox). */
  secretSealed: string;
  active: boolean;
  createdAt: string;
}

export interface DeliveryRecord {
  id: number;
  webhookId: string;
  event: string;
  status: "pending" | "delivered" | "failed";
  httpCode: number;
  attempts: number;
  payload: string;
  createdAt: string;
  nextAttemptAt: string | null;
  /** The envelope's id: webhook-id of every attempt (decision W7). */
  eventId: string;
  /** A sample sent by the test operation, not an event that happened (decision W8). */
  test: boolean;
}

export interface WebhookRepository {
  /** With `cap`, throws CapReachedError when the project already has that many, checked in the insert's transaction. */
  create(w: Omit<WebhookRecord, "id" | "createdAt" | "active">, cap?: number): Promise<WebhookRecord>;
  list(projectId: string): Promise<WebhookRecord[]>;
  get(projectId: string, id: string): Promise<WebhookRecord | undefined>;
  delete(projectId: string, id: string): Promise<boolean>;
  /** Newest first; `before`: only deliveries with a smaller id (the next page's cursor). */
  listDeliveries(webhookId: string, limit: number, before?: number): Promise<DeliveryRecord[]>;
  getDelivery(webhookId: string, id: number): Promise<DeliveryRecord | undefined>;
  /**
   * Logs a test event for the subscription and queues its delivery like any other (decision W8):
   * pending, first attempt at once, retried on the W2 schedule. `body` is the exact envelope.
   */
  addTestDelivery(hook: WebhookRecord, event: { type: string; body: string; createdAt: string }): Promise<DeliveryRecord>;
}

interface HookRow {
  id: string;
  project_id: string;
  url: string;
  events: string;
  secret_enc: string;
  active: unknown;
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
  event_id: string | null;
  test: unknown;
}

export const HOOK_COLUMNS = "id, project_id, url, events, secret_enc, active, created_at";
export const DELIVERY_COLUMNS = "id, webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, event_id, test";

export const toHook = (r: HookRow): WebhookRecord => ({
  id: r.id, projectId: r.project_id, url: r.url, events: JSON.parse(r.events), secretSealed: r.secret_enc, active: bool(r.active), createdAt: r.created_at,
});

export const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id, webhookId: r.webhook_id, event: r.event, status: r.status, httpCode: r.http_code, attempts: r.attempts,
  payload: r.payload, createdAt: r.created_at, nextAttemptAt: r.next_attempt_at,
  eventId: r.event_id ?? envelopeId(r.payload, r.id), test: bool(r.test),
});

/**
 * The id of a delivery with no row in `events` (a test event, or a row older than the column):
 * its envelope's `id`, else one made from the delivery's own id, stable all the same.
 */
function envelopeId(payload: string, deliveryId: number): string {
  try {
    const id = (JSON.parse(payload) as { id?: unknown }).id;
    if (typeof id === "string" && id) return id;
  } catch {
    // not JSON: fall through
  }
  return `dlv_${deliveryId}`;
}

/** Webhook subscriptions and their delivery log, written once for both stores (db/sql.ts). */
export class SqlWebhookRepository implements WebhookRepository {
  private readonly store: Store;
  private readonly jobs: JobQueue;
  constructor(store: Store, jobs: JobQueue) {
    this.store = store;
    this.jobs = jobs;
  }

  async create(w: Omit<WebhookRecord, "id" | "createdAt" | "active">, cap?: number): Promise<WebhookRecord> {
    const row = await insertWithinCap(this.store, `webhooks:${w.projectId}`, cap,
      async (tx) => Number((await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhooks WHERE project_id = ?", [w.projectId]))!.n),
      (tx) => tx.get<HookRow>(`INSERT INTO webhooks (id, project_id, url, events, secret_enc, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${HOOK_COLUMNS}`,
        [newId("whk"), w.projectId, w.url, JSON.stringify(w.events), w.secretSealed, nowIso()]),
    );
    return toHook(row!);
  }

  async list(projectId: string): Promise<WebhookRecord[]> {
    return (await this.store.all<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`, [projectId])).map(toHook);
  }

  async get(projectId: string, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.store.get<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE project_id = ? AND id = ?`, [projectId, id]);
    return row && toHook(row);
  }

  delete(projectId: string, id: string): Promise<boolean> {
    // The subscription, its delivery log (ON DELETE CASCADE) and its waiting jobs go together:
    // nothing more is sent to a URL its owner unsubscribed. A job another instance is running
    // now finds its delivery gone when it records (or reloads), and does nothing.
    return this.store.transaction(async (tx) => {
      if ((await tx.run("DELETE FROM webhooks WHERE project_id = ? AND id = ?", [projectId, id])).changes === 0) return false;
      await this.jobs.cancelWhere(tx, DELIVER_JOB, "$.webhookId", id);
      return true;
    });
  }

  async listDeliveries(webhookId: string, limit: number, before = Number.MAX_SAFE_INTEGER): Promise<DeliveryRecord[]> {
    return (await this.store.all<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, [webhookId, before, limit])).map(toDelivery);
  }

  async getDelivery(webhookId: string, id: number): Promise<DeliveryRecord | undefined> {
    // An id that is no BIGINT (a path segment like "abc" or 1e30) names no delivery.
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.store.get<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`, [webhookId, id]);
    return row && toDelivery(row);
  }

  addTestDelivery(hook: WebhookRecord, event: { type: string; body: string; createdAt: string }): Promise<DeliveryRecord> {
    return this.store.transaction(async (tx) => {
      const row = await tx.get<DeliveryRow>(
        `INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at, next_attempt_at, test)
         VALUES (?, ?, 'pending', 0, 0, ?, ?, ?, ?) RETURNING ${DELIVERY_COLUMNS}`,
        [hook.id, event.type, event.body, event.createdAt, event.createdAt, true],
      );
      // The same job, group and handler as an emitted event's delivery (events/event-outbox.ts).
      await this.jobs.enqueue(tx, DELIVER_JOB, { deliveryId: row!.id, webhookId: hook.id }, { group: new URL(hook.url).origin });
      return toDelivery(row!);
    });
  }
}
