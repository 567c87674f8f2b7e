// Outgoing mail's storage: the shared suite on both backends.
import { transaction } from "../db/database.ts";
import { EventOutbox } from "../events/event-outbox.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { backends } from "../test/backends.ts";
import { PgMessageOutcomes } from "./pg-message-outcomes.ts";
import { PgSentMessageRepository } from "./pg-sent-message-repository.ts";
import { describeSentMessageStorage, type MailStorage } from "./sent-message-repository.contract.ts";
import { SqliteMessageOutcomes } from "./sqlite-message-outcomes.ts";
import { SqliteSentMessageRepository } from "./sqlite-sent-message-repository.ts";

for (const backend of backends) {
  describeSentMessageStorage(backend, (c, clock): MailStorage => {
    if (c.backend === "sqlite") {
      const { db } = c;
      const jobs = new JobQueue(db, clock);
      const repo = new SqliteSentMessageRepository(db, jobs, clock);
      const o = new SqliteMessageOutcomes(db, new EventOutbox(db, jobs, clock), clock);
      return {
        accept: async (r) => repo.accept(r),
        // As the dispatch job's write: inside the worker's transaction.
        dispatchScheduled: async (id, relay) => transaction(db, () => repo.dispatchScheduled(id, relay)),
        cancel: async (p, id) => repo.cancel(p, id),
        list: async (p, f) => repo.list(p, f),
        detail: async (p, id) => repo.detail(p, id),
        funnel: async (p, since, campaign) => repo.funnel(p, since, campaign),
        getForRelay: async (id) => repo.getForRelay(id),
        markDelivered: async (id, reply) => o.markDelivered(id, reply),
        markHandedOver: async (id, relayId) => o.markHandedOver(id, relayId),
        markDelayed: async (id, reason) => o.markDelayed(id, reason),
        markFailed: async (id, reason) => o.markFailed(id, reason),
        markBounced: async (id, b) => o.markBounced(id, b),
        markComplained: async (id) => o.markComplained(id),
        recordUnsubscribe: async (id) => o.recordUnsubscribe(id),
        recordOpen: async (id) => o.recordOpen(id),
        recordClick: async (id, idx) => o.recordClick(id, idx),
        getTrackingInfo: async (id) => o.getTrackingInfo(id),
        jobs: async (kind) => (db.prepare("SELECT payload FROM jobs WHERE kind = ? ORDER BY id").all(kind) as { payload: string }[]).map((r) => JSON.parse(r.payload)),
        events: async (p) => (db.prepare("SELECT type FROM events WHERE project_id = ? ORDER BY rowid").all(p) as { type: string }[]).map((r) => r.type),
      };
    }
    const { pg } = c;
    const jobs = new PgJobQueue(pg, clock);
    const repo = new PgSentMessageRepository(pg, jobs, clock);
    const o = new PgMessageOutcomes(new PgEventOutbox(jobs, clock), clock);
    return {
      accept: (r) => repo.accept(r),
      dispatchScheduled: (id, relay) => pg.tx((t) => repo.dispatchScheduled(t, id, relay)),
      cancel: (p, id) => repo.cancel(p, id),
      list: (p, f) => repo.list(p, f),
      detail: (p, id) => repo.detail(p, id),
      funnel: (p, since, campaign) => repo.funnel(p, since, campaign),
      getForRelay: (id) => repo.getForRelay(id),
      markDelivered: (id, reply) => pg.tx((t) => o.markDelivered(t, id, reply)),
      markHandedOver: (id, relayId) => pg.tx((t) => o.markHandedOver(t, id, relayId)),
      markDelayed: (id, reason) => pg.tx((t) => o.markDelayed(t, id, reason)),
      markFailed: (id, reason) => pg.tx((t) => o.markFailed(t, id, reason)),
      markBounced: (id, b) => pg.tx((t) => o.markBounced(t, id, b)),
      markComplained: (id) => pg.tx((t) => o.markComplained(t, id)),
      recordUnsubscribe: (id) => pg.tx((t) => o.recordUnsubscribe(t, id)),
      recordOpen: (id) => pg.tx((t) => o.recordOpen(t, id)),
      recordClick: (id, idx) => pg.tx((t) => o.recordClick(t, id, idx)),
      getTrackingInfo: (id) => o.getTrackingInfo(pg.pool, id),
      jobs: async (kind) => (await pg.query<{ payload: string }>("SELECT payload FROM jobs WHERE kind = $1 ORDER BY id", [kind])).map((r) => JSON.parse(r.payload)),
      // Events of one project are written one after another by this suite: their time then id order them.
      events: async (p) => (await pg.query<{ type: string }>("SELECT type FROM events WHERE project_id = $1 ORDER BY created_at, ctid", [p])).map((r) => r.type),
    };
  });
}
