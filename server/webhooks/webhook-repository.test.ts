// Webhook subscriptions, their log and the delivery store: the shared suite on both stores.
import { DELIVER_JOB, EventOutbox } from "../events/event-outbox.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { backends } from "../test/backends.ts";
import { SqlDeliveryStore } from "./delivery-store.ts";
import { describeWebhookStorage, type WebhookStorage } from "./webhook-repository.contract.ts";
import { SqlWebhookRepository } from "./webhook-repository.ts";

for (const backend of backends) {
  describeWebhookStorage(backend, ({ store }, clock): WebhookStorage => {
    const jobs = new JobQueue(store, clock);
    const outbox = new EventOutbox(jobs, clock);
    const deliveries = new SqlDeliveryStore(store, jobs);
    return {
      webhooks: new SqlWebhookRepository(store, jobs),
      deliveries: {
        load: (id) => deliveries.load(id),
        // As the worker runs a job's write: inside its transaction.
        recordDelivered: (...a) => store.transaction((tx) => deliveries.recordDelivered(tx, ...a)),
        recordFailed: (...a) => store.transaction((tx) => deliveries.recordFailed(tx, ...a)),
        abandon: (id) => store.transaction((tx) => deliveries.abandon(tx, id)),
        recordRedelivery: (...a) => deliveries.recordRedelivery(...a),
      },
      emit: async (projectId) => (await store.transaction((tx) => outbox.emit(tx, projectId, "mail.delivered", { messageId: "msg_1" }))).deliveryIds,
      jobs: () => jobs.count(DELIVER_JOB),
    };
  });
}
