// Outgoing mail's storage: the shared suite on both backends.
import { transaction } from "../db/database.ts";
import type { Tx } from "../db/tx.ts";
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
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
        accept: async (r) => repo.accept({ ...r, alsoWrite: r.alsoWrite && ((o) => r.alsoWrite!(o)) }),
        // As the dispatch job's write: inside the worker's transaction.
        dispatchScheduled: async (id, relay) => transaction(db, () => repo.dispatchScheduled(id, relay, { kind: "sqlite", db })),
        cancel: async (p, id) => repo.cancel(p, id),
        list: async (p, f) => repo.list(p, f),
        detail: async (p, id) => repo.detail(p, id),
        funnel: async (p, since, campaign) => repo.funnel(p, since, campaign),
        getForRelay: async (id) => repo.getForRelay(id),
        // The relay's outcomes as its job's write: inside the worker's transaction.
        markDelivered: async (id, reply) => transaction(db, () => o.markDelivered(id, reply, { kind: "sqlite", db })),
        markHandedOver: async (id, relayId) => transaction(db, () => o.markHandedOver(id, relayId, { kind: "sqlite", db })),
        markDelayed: async (id, reason) => transaction(db, () => o.markDelayed(id, reason, { kind: "sqlite", db })),
        markFailed: async (id, reason) => transaction(db, () => o.markFailed(id, reason, { kind: "sqlite", db })),
        markBounced: async (id, b) => o.markBounced(id, b),
        markComplained: async (id) => o.markComplained(id),
        recordUnsubscribe: async (id) => o.recordUnsubscribe(id),
        recordOpen: async (id) => o.recordOpen(id),
        recordClick: async (id, idx) => o.recordClick(id, idx),
        getTrackingInfo: async (id) => o.getTrackingInfo(id),
        jobs: async (kind) => (db.prepare("SELECT payload FROM jobs WHERE kind = ? ORDER BY id").all(kind) as { payload: string }[]).map((r) => JSON.parse(r.payload)),
        events: async (p) => (db.prepare("SELECT type FROM events WHERE project_id = ? ORDER BY rowid").all(p) as { type: string }[]).map((r) => r.type),
        eventData: async (p, type) => (db.prepare("SELECT payload FROM events WHERE project_id = ? AND type = ? ORDER BY rowid").all(p, type) as { payload: string }[]).map((r) => JSON.parse(r.payload).data),
      };
    }
    const { pg } = c;
    const jobs = new PgJobQueue(pg, clock);
    const repo = new PgSentMessageRepository(pg, jobs, clock);
    const o = new PgMessageOutcomes(pg, new PgEventOutbox(jobs, clock), clock);
    const inJob = <T>(fn: (tx: Tx) => Promise<T>) => pg.tx((c) => fn({ kind: "postgres", c }));
    return {
      accept: (r) => repo.accept({ ...r, alsoWrite: r.alsoWrite && (async (o) => r.alsoWrite!(o)) }),
      dispatchScheduled: (id, relay) => inJob((tx) => repo.dispatchScheduled(id, relay, tx)),
      cancel: (p, id) => repo.cancel(p, id),
      list: (p, f) => repo.list(p, f),
      detail: (p, id) => repo.detail(p, id),
      funnel: (p, since, campaign) => repo.funnel(p, since, campaign),
      getForRelay: (id) => repo.getForRelay(id),
      markDelivered: (id, reply) => inJob((tx) => o.markDelivered(id, reply, tx)),
      markHandedOver: (id, relayId) => inJob((tx) => o.markHandedOver(id, relayId, tx)),
      markDelayed: (id, reason) => inJob((tx) => o.markDelayed(id, reason, tx)),
      markFailed: (id, reason) => inJob((tx) => o.markFailed(id, reason, tx)),
      // Feedback outside any job: each in a transaction of its own.
      markBounced: (id, b) => o.markBounced(id, b),
      markComplained: (id) => o.markComplained(id),
      recordUnsubscribe: (id) => o.recordUnsubscribe(id),
      recordOpen: (id) => o.recordOpen(id),
      recordClick: (id, idx) => o.recordClick(id, idx),
      getTrackingInfo: (id) => o.getTrackingInfo(id),
      jobs: async (kind) => (await pg.query<{ payload: string }>("SELECT payload FROM jobs WHERE kind = $1 ORDER BY id", [kind])).map((r) => JSON.parse(r.payload)),
      // Events of one project are written one after another by this suite: their time then id order them.
      events: async (p) => (await pg.query<{ type: string }>("SELECT type FROM events WHERE project_id = $1 ORDER BY created_at, ctid", [p])).map((r) => r.type),
      eventData: async (p, type) => (await pg.query<{ payload: string }>("SELECT payload FROM events WHERE project_id = $1 AND type = $2 ORDER BY created_at, ctid", [p, type])).map((r) => JSON.parse(r.payload).data),
    };
  });
}
