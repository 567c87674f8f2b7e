// The storage boundary of webhook subscriptions and their delivery log.

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
}
