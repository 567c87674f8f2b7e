// Outgoing mail's storage: the shared suite on both stores. The relay's outcomes and a dispatch
// run as a job's write does, in a transaction they join; feedback in a transaction of its own.
import { backends } from "../test/backends.ts";
import { SqlMessageOutcomes } from "./message-outcomes.ts";
import { describeSentMessageStorage, type MailStorage } from "./sent-message-repository.contract.ts";
import { SqlSentMessageRepository } from "./sent-message-repository.ts";
import { mailOutboxOf } from "./test/mail-outbox-of.ts";

for (const backend of backends) {
  describeSentMessageStorage(backend, (c, clock): MailStorage => {
    const { store } = c;
    const outbox = mailOutboxOf(c, clock);
    const repo = new SqlSentMessageRepository(store, outbox, clock);
    const o = new SqlMessageOutcomes(store, outbox, clock);
    // Insertion order of the events: SQLite's rowid, PostgreSQL's physical order within one instant.
    const eventOrder = c.backend === "sqlite" ? "rowid" : "created_at, ctid";
    return {
      accept: (r) => repo.accept({ ...r, alsoWrite: r.alsoWrite && (async (outcomes) => r.alsoWrite!(outcomes)) }),
      dispatchScheduled: (id, relay) => store.transaction((tx) => repo.dispatchScheduled(id, relay, tx)),
      cancel: (p, id) => repo.cancel(p, id),
      list: (p, f) => repo.list(p, f),
      detail: (p, id) => repo.detail(p, id),
      funnel: (p, since, campaign) => repo.funnel(p, since, campaign),
      getForRelay: (id) => repo.getForRelay(id),
      markDelivered: (id, reply) => store.transaction((tx) => o.markDelivered(id, reply, tx)),
      markHandedOver: (id, relayId) => store.transaction((tx) => o.markHandedOver(id, relayId, tx)),
      markDelayed: (id, reason) => store.transaction((tx) => o.markDelayed(id, reason, tx)),
      markFailed: (id, reason) => store.transaction((tx) => o.markFailed(id, reason, tx)),
      markBounced: (id, b) => o.markBounced(id, b),
      markComplained: (id) => o.markComplained(id),
      recordUnsubscribe: (id) => o.recordUnsubscribe(id),
      recordOpen: (id) => o.recordOpen(id),
      recordClick: (id, idx) => o.recordClick(id, idx),
      getTrackingInfo: (id) => o.getTrackingInfo(id),
      jobs: async (kind) => (await store.all<{ payload: string }>("SELECT payload FROM jobs WHERE kind = ? ORDER BY id", [kind])).map((r) => JSON.parse(r.payload)),
      events: async (p) => (await store.all<{ type: string }>(`SELECT type FROM events WHERE project_id = ? ORDER BY ${eventOrder}`, [p])).map((r) => r.type),
      eventData: async (p, type) =>
        (await store.all<{ payload: string }>(`SELECT payload FROM events WHERE project_id = ? AND type = ? ORDER BY ${eventOrder}`, [p, type])).map((r) => JSON.parse(r.payload).data),
    };
  });
}
