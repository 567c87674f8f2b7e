// Webhook subscriptions, their log and the delivery store: the shared suite on both backends.
import { transaction } from "../db/database.ts";
import { DELIVER_JOB, EventOutbox } from "../events/event-outbox.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { backends } from "../test/backends.ts";
import { PgDeliveryStore } from "./pg-delivery-store.ts";
import { PgWebhookRepository } from "./pg-webhook-repository.ts";
import { SqliteDeliveryStore } from "./sqlite-delivery-store.ts";
import { SqliteWebhookRepository } from "./sqlite-webhook-repository.ts";
import { describeWebhookStorage, type WebhookStorage } from "./webhook-repository.contract.ts";

for (const backend of backends) {
  describeWebhookStorage(backend, (c, clock): WebhookStorage => {
    if (c.backend === "sqlite") {
      const { db } = c;
      const jobs = new JobQueue(db, clock);
      const outbox = new EventOutbox(db, jobs, clock);
      const store = new SqliteDeliveryStore(db, jobs);
      return {
        webhooks: new SqliteWebhookRepository(db, jobs),
        deliveries: {
          load: (id) => store.load(id),
          // As the worker runs a job's write: synchronously inside its transaction.
          recordDelivered: async (...a) => transaction(db, () => store.recordDelivered({ kind: "sqlite", db }, ...a)),
          recordFailed: async (...a) => transaction(db, () => store.recordFailed({ kind: "sqlite", db }, ...a)),
          abandon: async (id) => transaction(db, () => store.abandon({ kind: "sqlite", db }, id)),
          recordRedelivery: (...a) => store.recordRedelivery(...a),
        },
        emit: async (projectId) => outbox.emit(projectId, "mail.delivered", { messageId: "msg_1" }).deliveryIds,
        jobs: async () => jobs.count(DELIVER_JOB),
      };
    }
    const { pg } = c;
    const jobs = new PgJobQueue(pg, clock);
    const outbox = new PgEventOutbox(jobs, clock);
    const store = new PgDeliveryStore(pg, jobs);
    return {
      webhooks: new PgWebhookRepository(pg, jobs),
      deliveries: {
        load: (id) => store.load(id),
        recordDelivered: (...a) => pg.tx((c) => store.recordDelivered({ kind: "postgres", c }, ...a)),
        recordFailed: (...a) => pg.tx((c) => store.recordFailed({ kind: "postgres", c }, ...a)),
        abandon: (id) => pg.tx((c) => store.abandon({ kind: "postgres", c }, id)),
        recordRedelivery: (...a) => store.recordRedelivery(...a),
      },
      emit: async (projectId) => (await pg.tx((t) => outbox.emit(t, projectId, "mail.delivered", { messageId: "msg_1" }))).deliveryIds,
      jobs: () => jobs.count(DELIVER_JOB),
    };
  });
}
